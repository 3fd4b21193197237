package store

import (
	"encoding/binary"
	"errors"
	"reflect"
	"testing"
)

// oldContext and oldSentence encode records as every reqa before the
// structured-document fields did.
func oldContext(c Context) []byte {
	b := appendString(nil, c.ExtID)
	b = appendString(b, c.Title)
	b = appendString(b, c.Text)
	return appendString(b, c.Source)
}

func oldSentence(s Sentence) []byte {
	b := binary.AppendUvarint(nil, uint64(s.ContextID))
	b = binary.AppendUvarint(b, uint64(s.Start))
	b = binary.AppendUvarint(b, uint64(s.End-s.Start))
	return appendString(b, s.ExtID)
}

// TestRecordCompat checks that records without the structured-document
// fields encode byte for byte as before, that old records decode with those
// fields zero, and that records with them round-trip.
func TestRecordCompat(t *testing.T) {
	for _, c := range []Context{
		{ID: 3, ExtID: "c1", Title: "T", Text: "One. Two.", Source: "a.txt:1"},
		{ID: 4, Title: "A › B", Text: "A › B\nx.", Source: "d.md:7#b", Doc: "d.md", Slug: "b"},
		{ID: 5, Text: "p.", Source: "m.pdf:p2", Doc: "m.pdf", Paged: true},
	} {
		enc := c.encode()
		if c.Doc == "" && string(enc) != string(oldContext(c)) {
			t.Errorf("context %+v: encoding changed", c)
		}
		var got Context
		if err := got.decode(c.ID, enc); err != nil || !reflect.DeepEqual(got, c) {
			t.Errorf("context round trip: %+v %v, want %+v", got, err, c)
		}
		var old Context
		if err := old.decode(c.ID, oldContext(c)); err != nil || old.Doc != "" || old.Slug != "" || old.Paged || old.Text != c.Text {
			t.Errorf("old context record: %+v %v", old, err)
		}
	}
	for _, s := range []Sentence{
		{ID: 1, ContextID: 2, Start: 3, End: 9, ExtID: "s1"},
		{ID: 2, ContextID: 2, Start: 10, End: 20, Kind: KindTableRow, Line: 42},
		{ID: 3, ContextID: 7, Start: 0, End: 1, Kind: KindText, Line: 7},
	} {
		enc := s.encode()
		if s.Kind == KindText && s.Line == 0 && string(enc) != string(oldSentence(s)) {
			t.Errorf("sentence %+v: encoding changed", s)
		}
		var got Sentence
		if err := got.decode(s.ID, enc); err != nil || got != s {
			t.Errorf("sentence round trip: %+v %v, want %+v", got, err, s)
		}
		var old Sentence
		if err := old.decode(s.ID, oldSentence(s)); err != nil || old.Kind != KindText || old.Line != 0 || old.End != s.End {
			t.Errorf("old sentence record: %+v %v", old, err)
		}
	}
	for _, bad := range [][]byte{
		append(oldSentence(Sentence{End: 1}), 99, 1),         // unknown kind
		append(oldSentence(Sentence{End: 1}), 1, 0xff, 0xff), // truncated line
		append(oldContext(Context{Text: "x"}), 5, 'a'),       // truncated doc name
	} {
		var s Sentence
		var c Context
		errS, errC := s.decode(0, bad), c.decode(0, bad)
		if !errors.Is(errS, ErrCorrupt) && !errors.Is(errC, ErrCorrupt) {
			t.Errorf("damaged record %x accepted: %v %v", bad, errS, errC)
		}
	}
}

func TestSentenceAnchor(t *testing.T) {
	for _, tc := range []struct {
		c    Context
		s    Sentence
		want string
	}{
		{Context{Source: "a.txt:1"}, Sentence{Line: 3}, "a.txt:1"},
		{Context{Source: "d.md:7#b", Doc: "d.md", Slug: "b"}, Sentence{Line: 9}, "d.md:9#b"},
		{Context{Source: "d.md:7", Doc: "d.md"}, Sentence{Line: 9}, "d.md:9"},
		{Context{Source: "m.pdf:p2#x", Doc: "m.pdf", Slug: "x", Paged: true}, Sentence{Line: 3}, "m.pdf:p3#x"},
		{Context{Source: "d.md:7#b", Doc: "d.md", Slug: "b"}, Sentence{}, "d.md:7#b"},
	} {
		if got := tc.s.Anchor(tc.c); got != tc.want {
			t.Errorf("Anchor(%+v, %+v) = %q, want %q", tc.s, tc.c, got, tc.want)
		}
	}
	for k := KindText; k < numKinds; k++ {
		if p, ok := ParseKind(k.String()); !ok || p != k {
			t.Errorf("kind %d: %q parses as %d %v", k, k.String(), p, ok)
		}
	}
	if _, ok := ParseKind("chapter"); ok {
		t.Error("unknown kind parsed")
	}
}
