package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestServeWatch serves an index of a directory with --watch while four
// clients keep asking: a file edited to hold a new sentence is answered
// with it, a removed file's sentence is gone, /v1/stats reports the syncs,
// and no client request fails meanwhile. How long an edit takes to be
// answered is logged (BENCHMARKS.md), not asserted; the deadline only
// catches a hang.
func TestServeWatch(t *testing.T) {
	requireDense(t)
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	if err := os.Mkdir(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, docs, "mill.md", "# The mill\n\nThe mill grinds wheat into flour every morning.\nIts wheel turns in the river current.\n")
	writeFile(t, docs, "garden.md", "# The garden\n\nThe garden grows beans and tall sunflowers.\nA gardener waters it at dusk.\n")
	writeFile(t, docs, "boats.md", "# Boats\n\nThe ferry crosses the lake twice a day.\n")
	idx := filepath.Join(dir, "docs.reqa")
	if code, _, errs := reqa(t, "index", "--quiet", "--out", idx, docs); code != 0 {
		t.Fatalf("index: exit %d: %s", code, errs)
	}
	cmd := exec.Command(os.Args[0], "serve", "--index", idx, "--addr", "127.0.0.1:0", "--watch", docs,
		"--watch-every", "200ms", "--reload-every", "100ms", "--max-concurrent", "4", "--exclude", "*.txt")
	cmd.Env = append(os.Environ(), "REQA_RUN_MAIN=1")
	base, _, lines := startServe(t, cmd)
	var logMu sync.Mutex
	var logText strings.Builder
	go func() {
		for lines.Scan() {
			logMu.Lock()
			logText.WriteString(lines.Text() + "\n")
			logMu.Unlock()
		}
	}()
	client := &http.Client{Timeout: 30 * time.Second}
	first := func(q string) (string, error) {
		resp, err := client.Get(base + "/v1/ask?k=1&q=" + url.QueryEscape(q))
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return "", err
		}
		if resp.StatusCode != 200 {
			return "", fmt.Errorf("status %d: %s", resp.StatusCode, b)
		}
		var r askReply
		if err := json.Unmarshal(b, &r); err != nil {
			return "", err
		}
		if len(r.Answers) == 0 {
			return "", nil
		}
		return r.Answers[0].Sentence, nil
	}

	// Four clients ask all along.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var asked, failed atomic.Int64
	var failMu sync.Mutex
	var failures []string
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			qs := []string{"What does the mill grind?", "When is the garden watered?", "How often does the ferry cross the lake?"}
			for j := 0; ; j++ {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := first(qs[(i+j)%len(qs)]); err != nil {
					failed.Add(1)
					failMu.Lock()
					failures = append(failures, err.Error())
					failMu.Unlock()
				}
				asked.Add(1)
			}
		}()
	}
	waitFor := func(what, q, want string, present bool) time.Duration {
		t.Helper()
		start := time.Now()
		for deadline := start.Add(90 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			got, err := first(q)
			if err == nil && (got == want) == present {
				return time.Since(start)
			}
		}
		logMu.Lock()
		defer logMu.Unlock()
		t.Fatalf("%s: %q still answered %v after 90 s; serve's log:\n%s", what, q, !present, logText.String())
		return 0
	}

	// An edit: a new sentence in an existing file.
	heron := "A grey heron nests on the roof of the mill."
	time.Sleep(300 * time.Millisecond)
	writeFile(t, docs, "mill.md", "# The mill\n\nThe mill grinds wheat into flour every morning.\nIts wheel turns in the river current.\n"+heron+"\n")
	edited := waitFor("edit", "Where does the heron nest?", heron, true)
	// A removal: the ferry's only sentence goes.
	if err := os.Remove(filepath.Join(docs, "boats.md")); err != nil {
		t.Fatal(err)
	}
	removed := waitFor("removal", "How often does the ferry cross the lake?", "The ferry crosses the lake twice a day.", false)
	// A file the index excludes is not synced in (a question about it is
	// answered from the other files all along; checked at the end).
	owl := "A barn owl hunts over the meadow at night."
	writeFile(t, docs, "owl.txt", "# Night\n\n"+owl+"\n")
	// A file no reader takes is skipped, and the log names it.
	writeFile(t, docs, "junk.md", "\x00\x01binary")
	// A new file.
	fox := "A red fox sleeps under the garden shed."
	writeFile(t, docs, "fox.md", "# Visitors\n\n"+fox+"\n")
	added := waitFor("new file", "Where does the fox sleep?", fox, true)
	close(stop)
	wg.Wait()
	t.Logf("edit answered after %v, removal after %v, new file after %v; %d questions asked meanwhile", edited, removed, added, asked.Load())
	if failed.Load() > 0 {
		t.Errorf("%d of %d client requests failed while the index synced, e.g. %q", failed.Load(), asked.Load(), failures[0])
	}

	resp, err := client.Get(base + "/v1/stats")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var stats struct {
		Sentences int `json:"sentences"`
		Sync      *struct {
			Dirs     []string  `json:"dirs"`
			LastSync time.Time `json:"last_sync"`
			Syncs    int       `json:"syncs"`
			Added    int       `json:"added"`
			Embedded int       `json:"embedded_sentences"`
			Error    string    `json:"last_error"`
		} `json:"sync"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&stats); err != nil {
		t.Fatal(err)
	}
	if stats.Sync == nil || stats.Sync.Syncs < 3 || stats.Sync.Added != 1 || stats.Sync.LastSync.IsZero() || stats.Sync.Error != "" ||
		len(stats.Sync.Dirs) != 1 || stats.Sync.Embedded < 1 {
		t.Errorf("/v1/stats sync = %+v, want at least 3 syncs, the last adding one file", stats.Sync)
	}
	logMu.Lock()
	if !strings.Contains(logText.String(), "junk.md") {
		t.Errorf("the skipped junk.md is not named in serve's log:\n%s", logText.String())
	}
	logMu.Unlock()
	if got, err := first("When does the barn owl hunt?"); err != nil || got == owl {
		t.Errorf("the excluded owl.txt answered (%q, %v)", got, err)
	}
	// The served index holds what a fresh build of the final tree holds.
	code, out, errs := reqa(t, "index", "--quiet", "--json", "--dense=false", "--exclude", "*.txt", "--out", filepath.Join(dir, "fresh.reqa"), docs)
	var fresh struct{ Sentences int }
	if code != 0 || json.Unmarshal([]byte(out), &fresh) != nil || fresh.Sentences == 0 {
		t.Fatalf("fresh index: exit %d: %s%s", code, out, errs)
	}
	if stats.Sentences != fresh.Sentences {
		t.Errorf("/v1/stats: %d sentences, a fresh build of the final files %d", stats.Sentences, fresh.Sentences)
	}
}

// TestServeWatchRefuses: --watch needs a directory and an index that
// records its source files.
func TestServeWatchRefuses(t *testing.T) {
	dir := t.TempDir()
	ds := writeDataset(t, dir, "ferries")
	idx := filepath.Join(dir, "ferries.reqa")
	if code, _, errs := reqa(t, "index", "--quiet", "--dense=false", "--out", idx, ds); code != 0 {
		t.Fatalf("index: exit %d: %s", code, errs)
	}
	file := writeFile(t, dir, "note.md", "# Note\n\nA note.\n")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"not a directory", []string{"--watch", file}, "not a directory"},
		{"missing", []string{"--watch", filepath.Join(dir, "nope")}, "no such file"},
		{"bad interval", []string{"--watch", dir, "--watch-every", "0s"}, "--watch-every"},
		{"dataset index", []string{"--watch", dir}, "cannot sync"},
		{"include without watch", []string{"--include", "*.md"}, "--include goes with --watch"},
	} {
		code, _, errs := reqa(t, append([]string{"serve", "--index", idx, "--addr", "127.0.0.1:0"}, tc.args...)...)
		if code == 0 || !strings.Contains(errs, tc.want) {
			t.Errorf("%s: exit %d: %s (want an error saying %q)", tc.name, code, errs, tc.want)
		}
	}
}
