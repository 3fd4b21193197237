package ingest

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/reqa/reqa/index"
	"github.com/reqa/reqa/ingest/document"
	"github.com/reqa/reqa/store"
)

// mixedCorpus reads the docs fixtures with a JSONL-style context between
// them (a context given by its input, which no choice may change).
func mixedCorpus(t *testing.T) *Corpus {
	c := readDocs(t, "shims.md")
	c.AddSplitContext(store.Context{ExtID: "j1", Title: "Given", Text: "A given context. It stays.", Source: "in.jsonl:1"})
	readDocsInto(t, c, "frob.html", "notes.txt")
	return c
}

func TestWithContexts(t *testing.T) {
	c := mixedCorpus(t)
	before := fmt.Sprintf("%+v", *c)
	wantSents := sentenceTexts(c)
	for _, choice := range append([]string{""}, ContextChoices...) {
		t.Run(choice, func(t *testing.T) {
			out, err := c.WithContexts(choice)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprintf("%+v", *c) != before {
				t.Fatal("WithContexts changed its corpus")
			}
			// The same candidates in the same order, whatever the choice.
			if got := sentenceTexts(out); !reflect.DeepEqual(got, wantSents) {
				t.Fatalf("sentences changed:\n%q\nwant\n%q", got, wantSents)
			}
			for i, s := range out.Sentences {
				if s.ID != uint32(i) || s.Kind != c.Sentences[i].Kind || s.Line != c.Sentences[i].Line {
					t.Fatalf("sentence %d: %+v, was %+v", i, s, c.Sentences[i])
				}
				if i > 0 && s.ContextID < out.Sentences[i-1].ContextID {
					t.Fatalf("sentence %d out of context order", i)
				}
			}
			var given []store.Context
			byTitle := map[string][]string{}
			for i, ctx := range out.Contexts {
				if ctx.ID != uint32(i) {
					t.Fatalf("context %d has id %d", i, ctx.ID)
				}
				if ctx.Doc == "" {
					given = append(given, ctx)
					continue
				}
				byTitle[ctx.Title] = append(byTitle[ctx.Title], ctx.Text)
			}
			if len(given) != 1 || given[0].Text != "A given context. It stays." || given[0].ExtID != "j1" {
				t.Fatalf("the given context changed: %+v", given)
			}
			rehash := "Shimmer › Commands › shimmer rehash"
			notes := byTitle["notes"]
			switch choice {
			case ContextParagraph:
				if !reflect.DeepEqual(out.Contexts, c.Contexts) {
					t.Fatal("paragraph contexts differ from the contexts read")
				}
			case ContextParagraphHeading, "":
				want := []string{rehash + "\nRehashing installs shims for every executable the installed versions provide. Run it after you install a new version."}
				if !reflect.DeepEqual(byTitle[rehash], want) {
					t.Fatalf("rehash contexts %q", byTitle[rehash])
				}
				if len(notes) != 2 || notes[0] != "Plain notes have no headings. A paragraph spans lines." {
					t.Fatalf("text without headings got a prefix: %q", notes)
				}
				// A definition list nested in a definition: under its term.
				mode := "frob(1) › OPTIONS › --mode M"
				if got := byTitle[mode]; !reflect.DeepEqual(got, []string{mode + "\nfast: Skips the backup."}) {
					t.Fatalf("nested definition contexts %q", got)
				}
			case ContextSection:
				which := byTitle["Shimmer › Commands › shimmer which"]
				want := []string{"Shimmer › Commands › shimmer which\nPrints the full path to an executable.\nLooks in the selected version first.\nOption: --skip-advice; Meaning: Does not suggest other versions.\n"}
				if !reflect.DeepEqual(which, want) {
					t.Fatalf("section context %q, want %q", which, want)
				}
				// Code is shown in its section, never a candidate.
				if len(byTitle[rehash]) != 1 || !strings.HasSuffix(byTitle[rehash][0], "new version.\n$ shimmer rehash\n") {
					t.Fatalf("rehash section %q", byTitle[rehash])
				}
				if len(notes) != 2 {
					t.Fatalf("text without headings merged: %q", notes)
				}
			case ContextWindow:
				if len(out.Contexts)-1 != len(out.Sentences)-2 { // the given context holds 2
					t.Fatalf("%d window contexts for %d sentences", len(out.Contexts)-1, len(out.Sentences)-2)
				}
				want := rehash + "\nRehashing installs shims for every executable the installed versions provide. Run it after you install a new version."
				if byTitle[rehash][0] != want || byTitle[rehash][1] != want {
					t.Fatalf("window contexts %q", byTitle[rehash])
				}
				which := byTitle["Shimmer › Commands › shimmer which"]
				if len(which) != 3 || !strings.HasPrefix(which[2], "Shimmer › Commands › shimmer which\nPrints") {
					t.Fatalf("window contexts %q", which)
				}
			}
		})
	}
	if _, err := c.WithContexts("chapter"); err == nil || CheckContext("chapter") == nil {
		t.Fatal("an unknown choice was accepted")
	}
	// Formed contexts are final: forming them again with the same choice
	// (or the default) changes nothing, with another is refused.
	formed, err := c.WithContexts(ContextWindow)
	if err != nil {
		t.Fatal(err)
	}
	for _, again := range []string{"", ContextWindow} {
		if x, err := formed.WithContexts(again); err != nil || x != formed {
			t.Fatalf("forming %q again: %v", again, err)
		}
	}
	if _, err := formed.WithContexts(ContextSection); err == nil {
		t.Fatal("formed contexts were formed again with another choice")
	}
	if formed.contextChoice("") != ContextWindow {
		t.Fatalf("formed corpus reports choice %q", formed.contextChoice(""))
	}
}

// TestSectionContextCap checks that a long section is cut between blocks
// into contexts of at most MaxContextBytes (plus the heading path), each
// starting with the heading path, and that a window stays under the cap.
func TestSectionContextCap(t *testing.T) {
	var md strings.Builder
	md.WriteString("# Long\n\n")
	for i := range 200 {
		fmt.Fprintf(&md, "Paragraph %d says something about the topic at hand. It goes on for a while.\n\n", i)
	}
	md.WriteString("```\n" + strings.Repeat("code line\n", 500) + "```\n")
	c := &Corpus{}
	if err := readDocument(c, "long.md", "md", []byte(md.String())); err != nil {
		t.Fatal(err)
	}
	for _, choice := range []string{ContextSection, ContextWindow} {
		out, err := c.WithContexts(choice)
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Contexts) < 2 {
			t.Fatalf("%s: %d contexts", choice, len(out.Contexts))
		}
		for _, ctx := range out.Contexts {
			if !strings.HasPrefix(ctx.Text, "Long\n") || len(ctx.Text) > MaxContextBytes+len("Long\n") {
				t.Fatalf("%s: context of %d bytes: %.60q", choice, len(ctx.Text), ctx.Text)
			}
		}
		if got := sentenceTexts(out); !reflect.DeepEqual(got, sentenceTexts(c)) {
			t.Fatalf("%s: sentences changed", choice)
		}
	}
}

// TestHeadingSep checks package index splits heading paths where package
// ingest/document joins them.
func TestHeadingSep(t *testing.T) {
	if index.HeadingSep != document.PathSep {
		t.Fatalf("index.HeadingSep %q, document.PathSep %q", index.HeadingSep, document.PathSep)
	}
}
