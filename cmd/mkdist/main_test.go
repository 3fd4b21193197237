package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

func TestSBOMAddsComponentsReproducibly(t *testing.T) {
	dir := t.TempDir()
	lib := filepath.Join(dir, "lib.so")
	if err := os.WriteFile(lib, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	in := []byte(`{"bomFormat":"CycloneDX","specVersion":"1.6","metadata":{"component":{"bom-ref":"main"}},
		"components":[{"name":"golang.org/x/net","licenses":[{"license":{"id":"BSD-Source-Code"}}]}],
		"dependencies":[{"ref":"main","dependsOn":["x"]}]}`)
	var comps components
	if err := comps.Set("library|onnxruntime|1.24.1|pkg:npm/onnxruntime-node@1.24.1|MIT|LICENSE|" + lib); err != nil {
		t.Fatal(err)
	}
	out1, err := sbom(in, "2026-01-02T03:04:05Z", comps, map[string]string{"golang.org/x/net": "BSD-3-Clause"})
	if err != nil {
		t.Fatal(err)
	}
	out2, err := sbom(in, "2026-01-02T03:04:05Z", comps, map[string]string{"golang.org/x/net": "BSD-3-Clause"})
	if err != nil {
		t.Fatal(err)
	}
	if string(out1) != string(out2) {
		t.Error("two runs differ")
	}
	var doc struct {
		SerialNumber string `json:"serialNumber"`
		Metadata     struct{ Timestamp string }
		Components   []struct {
			Name, Version string
			Licenses      []struct{ License struct{ ID string } }
			Hashes        []struct{ Alg, Content string }
		}
		Dependencies []struct {
			Ref       string
			DependsOn []string
		}
	}
	if err := json.Unmarshal(out1, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Metadata.Timestamp != "2026-01-02T03:04:05Z" || !strings.HasPrefix(doc.SerialNumber, "urn:uuid:") {
		t.Errorf("timestamp %q, serial %q", doc.Metadata.Timestamp, doc.SerialNumber)
	}
	if len(doc.Components) != 2 || doc.Components[0].Licenses[0].License.ID != "BSD-3-Clause" {
		t.Fatalf("components: %+v", doc.Components)
	}
	ort := doc.Components[1]
	if ort.Name != "onnxruntime" || ort.Version != "1.24.1" || ort.Licenses[0].License.ID != "MIT" ||
		len(ort.Hashes) != 1 || ort.Hashes[0].Content != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Errorf("onnxruntime component: %+v", ort)
	}
	if d := doc.Dependencies[0].DependsOn; len(d) != 2 || d[1] != "pkg:npm/onnxruntime-node@1.24.1" {
		t.Errorf("dependencies: %v", d)
	}
	if _, err := sbom(in, "x", nil, map[string]string{"nope": "MIT"}); err == nil {
		t.Error("a -license naming no component was accepted")
	}
}

func TestLicensesReadsModuleCache(t *testing.T) {
	cache, goroot := t.TempDir(), t.TempDir()
	mod := filepath.Join(cache, "github.com", "!burnt!sushi", "toml@v1.0.0")
	for _, d := range []string{mod} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(mod, "COPYING"), []byte("toml license\n"), 0o644)
	os.WriteFile(filepath.Join(goroot, "LICENSE"), []byte("go license\n"), 0o644)
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Deps: []*debug.Module{{Path: "github.com/BurntSushi/toml", Version: "v1.0.0"}}}
	text, err := licenses(bi, cache, goroot, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"Go module github.com/BurntSushi/toml v1.0.0", "toml license", "go license"} {
		if !strings.Contains(text, w) {
			t.Errorf("no %q in\n%s", w, text)
		}
	}
	bi.Deps = append(bi.Deps, &debug.Module{Path: "example.com/missing", Version: "v1.0.0"})
	if _, err := licenses(bi, cache, goroot, nil); err == nil {
		t.Error("a module missing from the cache was accepted")
	}
}
