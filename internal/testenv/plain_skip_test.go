package testenv_test

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// plainSkip matches a call of testing's Skip, Skipf or SkipNow on any
// receiver; testenv.Skip is the one it does not count.
var plainSkip = regexp.MustCompile(`\b(\w+)\.Skip(f|Now)?\(`)

// skipReason is the comment a plain skip needs on the line above it.
const skipReason = "// May skip in CI: "

// TestPlainSkipsExplained checks every test file of the module: a test whose
// prerequisite is missing stops with testenv.Skip (a failure under CI=true);
// a plain tb.Skip is for deliberate opt-ins and modes only, and says so in a
// "May skip in CI: why" comment on the line above.
func TestPlainSkipsExplained(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not at %s: %v", root, err)
	}
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "third_party" || name == "testdata" || name == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		files++
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		rel, _ := filepath.Rel(root, path)
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		prev := ""
		for n := 1; sc.Scan(); n++ {
			line := strings.TrimSpace(sc.Text())
			for _, m := range plainSkip.FindAllStringSubmatch(line, -1) {
				if m[1] != "testenv" && !strings.HasPrefix(prev, skipReason) && !strings.HasPrefix(line, "//") {
					t.Errorf("%s:%d: %s: a missing prerequisite takes testenv.Skip; a deliberate skip needs %q on the line above", rel, n, line, skipReason+"why")
				}
			}
			prev = line
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 10 {
		t.Fatalf("only %d test files under %s: not the module", files, root)
	}
}
