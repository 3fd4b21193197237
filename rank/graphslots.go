package rank

import (
	"fmt"
	"unsafe"

	"github.com/reqa/reqa/index/ann"
	"github.com/reqa/reqa/store"
)

// graphSlots are the ANN graph's layer-0 slots an index stores
// (store.RowsDenseGraphSlots), read in place from the file's memory map:
// the graph is searched without decoding or copying its layer 0. Each
// chunk is checked (checksum, ann.CheckSlots) the first time a search
// reads it. It is the ann.LinkSource of a graph loaded by ann.LoadSplit;
// damage it meets is recorded with the answer rows' (answerRows.err), so
// a search reports it as it reports a damaged answer vector.
type graphSlots struct {
	rows  *store.Rows
	words int
	per   int
	rec   *answerRows
}

// openGraphSlots opens the stored slots of a graph over n sentences,
// recording damage in rec.
func openGraphSlots(r *store.Reader, n int, rec *answerRows) (*graphSlots, error) {
	rs, err := r.Rows(store.RowsDenseGraphSlots)
	if err != nil {
		return nil, fmt.Errorf("ANN graph slots: %w: %w", store.ErrCorrupt, err)
	}
	if rs.Len() != n || rs.RowBytes()%4 != 0 || rs.RowBytes() < 8 {
		return nil, fmt.Errorf("ANN graph slots: %d rows of %d bytes for %d sentences: %w", rs.Len(), rs.RowBytes(), n, store.ErrCorrupt)
	}
	w := rs.RowBytes() / 4
	rs.SetValidate(ann.CheckSlots(n, w))
	return &graphSlots{rows: rs, words: w, per: rs.PerChunk(), rec: rec}, nil
}

// Len and SlotWords implement ann.LinkSource.
func (s *graphSlots) Len() int       { return s.rows.Len() }
func (s *graphSlots) SlotWords() int { return s.words }

// Slot implements ann.LinkSource: node id's slot in place, or nil when its
// chunk is damaged (recorded).
func (s *graphSlots) Slot(id uint32) []uint32 {
	b, err := s.rows.Chunk(int(id) / s.per)
	if err != nil {
		s.rec.bad.CompareAndSwap(nil, &err)
		return nil
	}
	i := int(id) % s.per * s.words
	return uint32s(b)[i : i+s.words : i+s.words]
}

// uint32s views b (4-byte aligned, little-endian) as uint32s.
func uint32s(b []byte) []uint32 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/4)
}
