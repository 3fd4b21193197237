package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/reqa/reqa/index"
)

// serve --watch: the directories an index was built from are looked at
// every --watch-every (their files' paths, sizes and modification times);
// a change that has stayed the same for one more look is synced by a
// child `reqa index --sync` (its own process: its encoder, parser workers
// and memory end with it, and a failure there never stops the server),
// whose atomic rename the server picks up the way it picks up any rebuilt
// index. /v1/stats reports the last sync.

// maxWatchedFiles bounds one look at the watched directories.
const maxWatchedFiles = 1_000_000

// watchStatus is what /v1/stats says of serve --watch.
type watchStatus struct {
	Dirs []string `json:"dirs"`
	// LastSync is when the last sync finished (zero: none yet).
	LastSync  time.Time `json:"last_sync,omitzero"`
	Syncs     int       `json:"syncs"`
	Added     int       `json:"added"`
	Changed   int       `json:"changed"`
	Removed   int       `json:"removed"`
	Embedded  int       `json:"embedded_sentences"`
	Written   bool      `json:"written"`
	Seconds   float64   `json:"seconds"`
	LastError string    `json:"last_error,omitempty"`
}

// sourceWatch follows the directories of serve --watch.
type sourceWatch struct {
	index string
	dirs  []string
	every time.Duration
	log   *log.Logger
	// flags are passed to the child `reqa index --sync`.
	flags []string
	// synced is called after a sync that rewrote the index.
	synced func()

	mu     sync.Mutex
	status watchStatus
}

// checkWatch checks that the index was built from files serve --watch can
// sync: every watched directory exists, and the index records its files.
func checkWatch(idx string, dirs []string) error {
	for _, d := range dirs {
		st, err := os.Stat(d)
		if err != nil {
			return fmt.Errorf("serve: --watch: %w", err)
		}
		if !st.IsDir() {
			return usagef("serve: --watch %s: not a directory", d)
		}
	}
	if _, err := index.IndexedFiles(idx); err != nil {
		if errors.Is(err, index.ErrCannotSync) {
			return usagef("serve: --watch: %v", err)
		}
		return fmt.Errorf("serve: --watch: %w", err)
	}
	return nil
}

// Status returns what /v1/stats shows.
func (w *sourceWatch) Status() any {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.status
	s.Dirs = append([]string(nil), w.dirs...)
	return s
}

// run looks at the directories until ctx is done. The first look syncs
// whatever changed while the server was not running. A sync that failed
// is tried again only once the files change again (its error stays in
// /v1/stats), not on every look.
func (w *sourceWatch) run(ctx context.Context) {
	var synced, last, failed string
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		began := time.Now()
		now, err := fingerprint(ctx, w.dirs)
		// A look costs a walk of the trees: on a large tree the next one
		// waits ten times as long as this one took, so that watching takes
		// at most a tenth of a core.
		wait := max(w.every, 10*time.Since(began))
		switch {
		case err != nil:
			w.fail(fmt.Errorf("looking at %s: %w", strings.Join(w.dirs, ", "), err))
		case now == synced || now == failed:
		case now != last:
			last = now // changing: wait until it holds still for a look
		case w.sync(ctx):
			synced = now
		default:
			failed = now
		}
		t.Reset(wait)
	}
}

// sync runs the child `reqa index --sync`; it reports whether it
// succeeded.
func (w *sourceWatch) sync(ctx context.Context) bool {
	exe, err := os.Executable()
	if err != nil {
		w.fail(err)
		return false
	}
	args := append([]string{"index", "--sync", "--json", "--quiet", "--out", w.index}, w.flags...)
	cmd := exec.CommandContext(ctx, exe, append(append(args, "--"), w.dirs...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return false
		}
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		w.fail(fmt.Errorf("sync: %s", msg))
		return false
	}
	var res struct {
		Added     int  `json:"added"`
		Changed   int  `json:"changed"`
		Removed   int  `json:"removed"`
		Embedded  int  `json:"embedded_sentences"`
		Written   bool `json:"written"`
		Sentences int  `json:"sentences"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		w.fail(fmt.Errorf("sync: reading its summary: %w", err))
		return false
	}
	secs := time.Since(start).Seconds()
	w.mu.Lock()
	w.status.LastSync, w.status.Syncs = time.Now().UTC(), w.status.Syncs+1
	w.status.Added, w.status.Changed, w.status.Removed = res.Added, res.Changed, res.Removed
	w.status.Embedded, w.status.Written, w.status.Seconds, w.status.LastError = res.Embedded, res.Written, secs, ""
	w.mu.Unlock()
	if res.Written {
		w.log.Printf("synced %s with %s: added %d, changed %d, removed %d files; %d sentences embedded (%.1fs)",
			w.index, strings.Join(w.dirs, ", "), res.Added, res.Changed, res.Removed, res.Embedded, secs)
		// The files the sync skipped (a bomb, a reader's refusal) are
		// named as reqa index names them.
		for _, line := range strings.Split(errb.String(), "\n") {
			if strings.Contains(line, "warning:") {
				w.log.Print(strings.TrimPrefix(line, "reqa: "))
			}
		}
		if w.synced != nil {
			w.synced()
		}
	}
	return true
}

func (w *sourceWatch) fail(err error) {
	w.mu.Lock()
	changed := w.status.LastError != err.Error()
	w.status.LastError = err.Error()
	w.mu.Unlock()
	if changed {
		w.log.Printf("watch: %v; the index keeps serving as it is", err)
	}
}

// fingerprint digests the regular files under dirs: paths, sizes and
// modification times (what a sync compares first).
func fingerprint(ctx context.Context, dirs []string) (string, error) {
	var lines []string
	for _, d := range dirs {
		err := filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				if p == d {
					return err
				}
				return nil // unreadable below the root: the sync reports it
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if !e.Type().IsRegular() {
				return nil
			}
			if len(lines) >= maxWatchedFiles {
				return fmt.Errorf("more than %d files", maxWatchedFiles)
			}
			fi, err := e.Info()
			if err != nil {
				return nil
			}
			lines = append(lines, fmt.Sprintf("%s\x00%d\x00%d", p, fi.Size(), fi.ModTime().UnixNano()))
			return nil
		})
		if err != nil {
			return "", err
		}
	}
	sort.Strings(lines)
	h := sha256.New()
	for _, l := range lines {
		h.Write([]byte(l + "\n"))
	}
	return fmt.Sprintf("%x", h.Sum(nil)), nil
}
