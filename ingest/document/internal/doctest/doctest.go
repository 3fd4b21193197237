package doctest

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/reqa/reqa/ingest/document"
)

// ParseFunc is a reader: it parses data, the contents of the file name.
type ParseFunc func(name string, data []byte) (*document.Document, error)

// Got is one block as the tests see it.
type Got struct {
	Path string // heading path
	Kind document.Kind
	Text string
	Line int
	Page int
}

// Flatten lists a document's blocks with their heading paths.
func Flatten(d *document.Document) []Got {
	var out []Got
	for _, s := range d.Sections {
		for _, b := range s.Blocks {
			out = append(out, Got{s.Heading(), b.Kind, b.Text, b.Line, b.Page})
		}
	}
	return out
}

// FirstBlockText parses in (a line end added) with parse and returns its
// first block's text, "" when it has none: inline markup tests.
func FirstBlockText(t *testing.T, parse ParseFunc, in string) string {
	t.Helper()
	d, err := parse("t", []byte(in+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if b := Flatten(d); len(b) > 0 {
		return b[0].Text
	}
	return ""
}

// CheckOutline checks a parsed document's title and its sections'
// heading paths, printing its blocks when they differ.
func CheckOutline(t *testing.T, d *document.Document, err error, title string, paths []string) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	CheckDocument(t, d)
	var got []string
	for _, s := range d.Sections {
		got = append(got, s.Heading())
	}
	if d.Title != title || !slices.Equal(got, paths) {
		t.Errorf("title %q paths %q, want %q %q\n%s", d.Title, got, title, paths, strings.Join(BlockLines(d), "\n"))
	}
}

// Find returns the block whose text contains sub.
func Find(t *testing.T, blocks []Got, sub string) Got {
	t.Helper()
	for _, b := range blocks {
		if strings.Contains(b.Text, sub) {
			return b
		}
	}
	t.Fatalf("no block holds %q; blocks: %+v", sub, blocks)
	return Got{}
}

// Absent fails if any block or heading holds sub.
func Absent(t *testing.T, d *document.Document, sub string) {
	t.Helper()
	for _, s := range d.Sections {
		if strings.Contains(s.Heading(), sub) {
			t.Errorf("heading %q holds %q", s.Heading(), sub)
		}
		for _, b := range s.Blocks {
			if strings.Contains(b.Text, sub) {
				t.Errorf("%s block %q holds %q", b.Kind, b.Text, sub)
			}
		}
	}
}

// CandidatesLack fails if a candidate block holds sub.
func CandidatesLack(t *testing.T, d *document.Document, sub string) {
	t.Helper()
	for _, b := range Flatten(d) {
		if b.Kind.Candidate() && strings.Contains(b.Text, sub) {
			t.Errorf("candidate %s block %q holds %q", b.Kind, b.Text, sub)
		}
	}
}

// ParseFile parses testdata/name with parse and checks the document.
func ParseFile(t *testing.T, parse ParseFunc, name string) *document.Document {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	d, err := parse(name, data)
	if err != nil {
		t.Fatal(err)
	}
	CheckDocument(t, d)
	return d
}

// WantBlock is a block expected in a document: its text, kind, heading
// path and line.
type WantBlock struct {
	Text string
	Kind document.Kind
	Path string
	Line int
}

// ExpectBlocks checks that each of want is among blocks, as described.
func ExpectBlocks(t *testing.T, blocks []Got, want []WantBlock) {
	t.Helper()
	for _, w := range want {
		b := Find(t, blocks, w.Text)
		if b.Text != w.Text || b.Kind != w.Kind || b.Path != w.Path || b.Line != w.Line {
			t.Errorf("got %+v\nwant %+v", b, w)
		}
	}
}

// CheckBlocks checks d and its blocks, each "kind|heading path|text",
// against want.
func CheckBlocks(t *testing.T, d *document.Document, want []string) {
	t.Helper()
	CheckDocument(t, d)
	var got []string
	for _, b := range Flatten(d) {
		got = append(got, string(b.Kind)+"|"+b.Path+"|"+b.Text)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// CheckTexts checks the texts of a document's blocks, in order.
func CheckTexts(t *testing.T, d *document.Document, want []string) {
	t.Helper()
	CheckDocument(t, d)
	var got []string
	for _, b := range Flatten(d) {
		got = append(got, b.Text)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// CheckDocument checks what every parsed document must satisfy: valid
// UTF-8, no empty block, candidate blocks on one line of collapsed text,
// headings non-empty, slugs unique.
func CheckDocument(t *testing.T, d *document.Document) {
	t.Helper()
	slugs := map[string]bool{}
	for i, s := range d.Sections {
		for _, h := range s.Path {
			if h == "" || !utf8.ValidString(h) || strings.ContainsAny(h, "\n\t") {
				t.Fatalf("section %d: bad heading %q in path %q", i, h, s.Path)
			}
		}
		if s.Slug != "" {
			if slugs[s.Slug] && d.Format != document.HTML && d.Format != document.EPUB { // HTML ids are the author's
				t.Fatalf("slug %q repeated", s.Slug)
			}
			slugs[s.Slug] = true
		}
		for _, b := range s.Blocks {
			if strings.TrimSpace(b.Text) == "" || !utf8.ValidString(b.Text) || b.Group <= 0 {
				t.Fatalf("section %d: bad block %+v", i, b)
			}
			if b.Kind.Candidate() && (strings.ContainsAny(b.Text, "\n\t") || strings.TrimSpace(b.Text) != b.Text) {
				t.Fatalf("section %d: candidate text not collapsed: %q", i, b.Text)
			}
			if d.Anchor(s, b) == "" {
				t.Fatalf("no anchor for %+v", b)
			}
			for _, p := range b.Parents {
				if p == "" || strings.ContainsAny(p, "\n\t") {
					t.Fatalf("section %d: bad parent %q in %+v", i, p, b)
				}
			}
			if b.Term != 0 && (b.Kind != document.Definition || b.Term < 0 || b.Term >= len(b.Text) || b.Text[b.Term] != ':') {
				t.Fatalf("section %d: bad term length in %+v", i, b)
			}
		}
	}
}

// ManBlocks lists a document's blocks as "kind|term|parents|text|line".
func ManBlocks(d *document.Document) []string {
	var out []string
	for _, s := range d.Sections {
		for _, b := range s.Blocks {
			out = append(out, fmt.Sprintf("%s|%s|%s|%s|%d", b.Kind, b.Text[:b.Term], strings.Join(b.Parents, document.PathSep), b.Text, b.Line))
		}
	}
	return out
}

// SectionPaths lists a document's sections as "heading path#slug@line".
func SectionPaths(d *document.Document) []string {
	var out []string
	for _, s := range d.Sections {
		out = append(out, fmt.Sprintf("%s#%s@%d", s.Heading(), s.Slug, s.Line))
	}
	return out
}

// CheckLines checks lines got against want, printing both when they differ.
func CheckLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s\n%s\nwant\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// BlockLines lists a document's blocks with their anchors, heading paths
// and kinds.
func BlockLines(d *document.Document) []string {
	var out []string
	for _, s := range d.Sections {
		for _, b := range s.Blocks {
			out = append(out, fmt.Sprintf("%s [%s] %s %q", d.Anchor(s, b), s.Heading(), b.Kind, b.Text))
		}
	}
	return out
}

// WantError checks that err is an *Error naming the file name and holding
// msg.
func WantError(t *testing.T, err error, name, msg string) {
	t.Helper()
	var e *document.Error
	if !errors.As(err, &e) || !errors.Is(err, document.ErrMalformed) || e.Name != name || !strings.Contains(err.Error(), msg) {
		t.Fatalf("error %v, want an *Error for %s saying %q", err, name, msg)
	}
}

// FuzzParse parses data and checks the outcome: never a panic; an error is
// an *Error naming the file; a document satisfies CheckDocument.
func FuzzParse(t *testing.T, parse ParseFunc, data []byte) {
	d, err := parse("in", data)
	if err != nil {
		var e *document.Error
		if !errors.As(err, &e) || !errors.Is(err, document.ErrMalformed) || e.Name != "in" || e.Msg == "" {
			t.Fatalf("error %T %v is not an *Error naming the file", err, err)
		}
		return
	}
	CheckDocument(t, d)
}

// AddFixtures adds the files testdata/names to f's corpus.
func AddFixtures(f *testing.F, names ...string) {
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// PrintBlocks prints each block of d with its heading path and kind: the
// output of the readers' examples.
func PrintBlocks(d *document.Document) {
	for _, s := range d.Sections {
		for _, b := range s.Blocks {
			fmt.Printf("[%s] %s %q\n", s.Heading(), b.Kind, b.Text)
		}
	}
}

// Pathological is an input made to hurt a reader, rebuilt at any size:
// Gen returns it with about n repetitions of its pattern.
type Pathological struct {
	Name string
	Gen  func(n int) []byte
	// N is the smallest size tried; the check doubles it until one parse
	// takes long enough to time (or the input passes MaxBytes, or n
	// reaches MaxN).
	N int
	// MaxN is the largest size tried (0: N<<12). A compressed input
	// (a DOCX of 5·n bytes of nested tags deflates to n/200) that a reader
	// refuses at once would otherwise be doubled to gigabytes before
	// passing MaxBytes.
	MaxN int
}

// CheckLinear checks that parse takes linear time on each case: the size
// is doubled from tc.N until a parse takes at least 30 ms (or the input
// reaches 4 MB, or n reaches tc.MaxN: a reader that fast is not
// quadratic, and larger inputs time the machine's memory more than the
// reader), then the time of twice
// that size must be at most 3 times as long (or under 30 ms): a quadratic
// reader takes 4× every time, a linear one measured up to 3.1× on a
// machine under load. The two sizes are parsed in turn, five times each,
// and the fastest run of each counts, so that a burst of load slows both
// or neither; a pair over the ratio is measured up to four more times. A
// parse may fail (a reader may refuse an input past its limits) but must
// not panic.
func CheckLinear(t *testing.T, parse func(data []byte) error, cases []Pathological) {
	t.Helper()
	if testing.Short() {
		t.Skip("timing check")
	}
	const (
		enough   = 30 * time.Millisecond
		maxBytes = 4 << 20
		ratio    = 3.0
		runs     = 5
	)
	// The collector runs only past 1 GiB while a parse is timed: when its
	// cycles fall depends on the heap's size, so that one size may pay for
	// a cycle its double does not, or pay for two.
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(1 << 30))
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	run := func(data []byte) time.Duration {
		runtime.GC() // the garbage of the run before is not this one's
		start := time.Now()
		_ = parse(data)
		return time.Since(start)
	}
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			n := max(tc.N, 1)
			maxN := tc.MaxN
			if maxN <= 0 {
				maxN = n << 12
			}
			small := tc.Gen(n)
			for run(small) < enough && len(small) < maxBytes && 2*n <= maxN {
				n *= 2
				small = tc.Gen(n)
			}
			large := tc.Gen(2 * n)
			var t1, t2 time.Duration
			var r float64
			for try := 0; try < 5; try++ {
				t1, t2 = time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
				for range runs {
					t1 = min(t1, run(small))
					t2 = min(t2, run(large))
				}
				r = float64(t2) / float64(max(t1, time.Microsecond))
				t.Logf("n=%d (%d bytes) %v, n=%d (%d bytes) %v: %.2f×", n, len(small), t1, 2*n, len(large), t2, r)
				if r <= ratio || t2 < enough {
					return
				}
			}
			t.Errorf("doubling the input from %d to %d bytes took %.2f× as long (%v → %v), want at most %.1f×: not linear",
				len(small), len(large), r, t1, t2, ratio)
		})
	}
}
