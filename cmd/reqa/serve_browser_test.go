package main

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reqa/reqa/cmd/reqa/internal/server"
)

// TestServeBrowserToken drives the page of a server that needs a token in
// headless Chromium: the page asks for the token once, keeps it for the
// tab and sends it with every API request; a wrong token is refused and
// asked for again. Answers show the record's id beside its source.
func TestServeBrowserToken(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		skipUnlessCI(t, "headless Chromium not installed (%s): `make browser-deps` installs Debian's chromium (as root); browser test skipped", chromiumPath)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	b := startChromium(t)
	dir := t.TempDir()
	in := writeFile(t, dir, "faq.jsonl", `{"id": "faq-7", "title": "Ferry", "text": "The ferry leaves at nine. It returns at noon."}`+"\n"+
		`{"id": "faq-8", "title": "Tickets", "text": "Tickets cost five euros."}`+"\n")
	idx := filepath.Join(dir, "faq.reqa")
	if code, _, errs := reqa(t, "index", "--quiet", "--dense=false", "--out", idx, in); code != 0 {
		t.Fatalf("index: exit %d: %s", code, errs)
	}
	const token = "correct-horse-battery-staple-42"
	_, ts := newTestServer(t, idx, serverOptions{Perimeter: server.Perimeter{Token: token}})
	page := b.openPage(ctx, t)
	page.call(t, "Page.enable", nil)
	page.call(t, "Runtime.enable", nil)

	// Without a token the page asks for it, and the question in the link
	// waits.
	page.call(t, "Page.navigate", map[string]any{"url": ts.URL + "/?q=" + url.QueryEscape("What returns at noon?")})
	page.waitFor(ctx, t, "the token form", `!document.getElementById("token-form").hidden && document.activeElement === document.getElementById("token")`)
	var status string
	page.eval(t, `document.getElementById("status").textContent`, &status)
	if !strings.Contains(status, "needs its access token") {
		t.Fatalf("status %q", status)
	}
	page.typeText(t, token)
	page.pressEnter(t)
	snap := page.results(ctx, t)
	if snap.State != "done" || len(snap.Answers) == 0 || snap.Answers[0].Mark != "It returns at noon." {
		t.Fatalf("after entering the token: %+v", snap)
	}
	var ids []string
	page.eval(t, `Array.from(document.querySelectorAll("#answers .id"), e => e.textContent)`, &ids)
	if len(ids) == 0 || ids[0] != "id faq-7" {
		t.Fatalf("ids shown: %q", ids)
	}

	// The token is kept for the tab: another search needs no prompt.
	page.call(t, "Page.navigate", map[string]any{"url": ts.URL + "/?q=tickets"})
	snap = page.results(ctx, t)
	var hidden bool
	page.eval(t, `document.getElementById("token-form").hidden`, &hidden)
	if snap.State != "done" || len(snap.Answers) == 0 || !hidden {
		t.Fatalf("second search: %+v (token form hidden %v)", snap, hidden)
	}

	// A wrong token is refused and forgotten.
	page.eval(t, `sessionStorage.setItem("reqa-token", "wrong-token-of-thirty-characters"), true`, nil)
	page.call(t, "Page.navigate", map[string]any{"url": ts.URL + "/"})
	page.waitFor(ctx, t, "the token form again", `!document.getElementById("token-form").hidden`)
	page.eval(t, `document.getElementById("status").textContent`, &status)
	var kept any
	page.eval(t, `sessionStorage.getItem("reqa-token")`, &kept)
	if !strings.Contains(status, "refused") || kept != nil {
		t.Fatalf("wrong token: status %q, kept %v", status, kept)
	}
}
