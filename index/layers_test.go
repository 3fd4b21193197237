package index_test

import (
	"os/exec"
	"strings"
	"testing"
)

// layer is where a package of the module sits: data flows one way, cmd →
// ingest, rank (rank/eval) → index → store; internal/ holds leaves every
// layer may use.
func layer(pkg string) (room string, level int) {
	p := strings.TrimPrefix(pkg, "github.com/reqa/reqa/")
	room, _, _ = strings.Cut(p, "/")
	switch room {
	case "store":
		return room, 0
	case "index":
		return room, 1
	case "ingest", "rank":
		return room, 2
	case "cmd":
		return room, 3
	}
	return room, -1 // internal: leaves
}

// TestLayers reads the module's import graph (go list, non-test imports)
// and fails on any import that runs back up a layer or across from ingest
// to rank or back.
func TestLayers(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "github.com/reqa/reqa/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		from, fl := layer(f[0])
		for _, imp := range f[1:] {
			if !strings.HasPrefix(imp, "github.com/reqa/reqa/") {
				continue
			}
			n++
			to, tl := layer(imp)
			switch {
			case fl == -1 && tl != -1:
				t.Errorf("%s (internal) imports %s", f[0], imp)
			case tl > fl && fl != -1, fl == tl && from != to:
				t.Errorf("%s (%s) imports %s (%s): an arrow back up or across", f[0], from, imp, to)
			}
		}
	}
	if n < 50 {
		t.Fatalf("only %d imports read: the graph was not read", n)
	}
}
