package ingest

import (
	"errors"
	"fmt"
)

// ErrMemoryLimit is wrapped by a *MemoryLimitError.
var ErrMemoryLimit = errors.New("over the memory limit")

// MemoryLimitError reports that the inputs read so far already need more
// memory to index than ReadOptions.MemoryLimit allows, by
// index.EstimateBuildMemory: reading stopped there.
type MemoryLimitError struct {
	// Need is the estimated peak memory of indexing what was read so far
	// (a lower bound of what the whole input needs); Limit the limit.
	Need, Limit int64
	// Bytes is how many bytes of input were read; Sentences and Contexts
	// how many were found so far.
	Bytes               int64
	Sentences, Contexts int
	// File is the input being read when the limit was reached.
	File string
}

func (e *MemoryLimitError) Error() string {
	return fmt.Sprintf("reading %s: after %s of input (%d sentences from %d contexts so far) indexing already needs about %s of memory, more than the limit of %s",
		e.File, HumanBytes(e.Bytes), e.Sentences, e.Contexts, HumanBytes(e.Need), HumanBytes(e.Limit))
}

// Unwrap makes errors.Is(err, ErrMemoryLimit) true.
func (e *MemoryLimitError) Unwrap() error { return ErrMemoryLimit }

// HumanBytes formats a byte count for messages (GiB, MiB, KiB).
func HumanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d KiB", n>>10)
}
