package ingest

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reqa/reqa/ingest/document/formats"
)

// TestKindsFromRegistry checks that every list of kinds derives from
// formats.All: for each format, a file named with each of its extensions
// has its kind, standard input takes its name, a directory walk reads it
// (lists it under its kind), its binary-ness is the text check's, and the
// messages listing kinds name it.
func TestKindsFromRegistry(t *testing.T) {
	dir := t.TempDir()
	for _, f := range formats.All {
		name := string(f.Name)
		for _, ext := range f.Exts {
			if k, _ := kindOfName("doc" + strings.ToUpper(ext) + ".gz"); k != name {
				t.Errorf("kindOfName(doc%s) = %q, want %q", ext, k, name)
			}
			if err := os.WriteFile(filepath.Join(dir, "f-"+name+ext), []byte("Some text.\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if !slices.Contains(StdinKinds(), name) {
			t.Errorf("standard input does not take %q", name)
		}
		if _, err := newReader(context.Background(), ReadOptions{StdinKind: name}); err != nil {
			t.Errorf("StdinKind %q: %v", name, err)
		}
		if !dirKinds[name] {
			t.Errorf("walks do not read %q", name)
		}
		if binaryKind(name) != f.Binary {
			t.Errorf("binaryKind(%q) = %v", name, binaryKind(name))
		}
		if err := readDocument(&Corpus{}, "x", "nope", nil); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("unsupported kind error %v does not name %q", err, name)
		}
		if !strings.Contains(dirFiles(), f.Files) {
			t.Errorf("directory message %q does not name %q", dirFiles(), f.Files)
		}
	}
	if _, err := newReader(context.Background(), ReadOptions{StdinKind: "doc"}); err == nil || !strings.Contains(err.Error(), strings.Join(formats.Names(), ", ")) {
		t.Errorf("StdinKind doc: %v", err)
	}
	c, err := ReadInputsContext(context.Background(), []string{dir}, ReadOptions{})
	if err != nil && c == nil {
		// Every file may be refused (text is no PDF): the listing is in the error.
		if !strings.Contains(err.Error(), "refused") {
			t.Fatal(err)
		}
		return
	}
	for _, fr := range c.Files {
		want := strings.TrimPrefix(strings.SplitN(filepath.Base(fr.Path), ".", 2)[0], "f-")
		if fr.Kind != want {
			t.Errorf("%s listed as %q (%s: %s), want %q", fr.Path, fr.Kind, fr.Status, fr.Reason, want)
		}
	}
}
