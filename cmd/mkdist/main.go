// Command mkdist writes what `make dist` puts beside a reqa binary besides
// the binary itself: THIRD_PARTY_LICENSES, the license text of everything
// the binary embeds (every Go module its build information lists, read from
// the module cache, Go's own, and the non-Go components given), and the
// finished SBOM: cyclonedx-gomod's CycloneDX JSON with those non-Go
// components (ONNX Runtime, the model, the vocabulary) added, with their
// versions, licenses and hashes, and its timestamp and serial number made
// reproducible.
//
//	go run ./cmd/mkdist licenses -bin BIN -modcache DIR -goroot DIR -component SPEC... -out FILE
//	go run ./cmd/mkdist sbom -in CDX.json -date RFC3339 -component SPEC... -out FILE
//
// A SPEC is "type|name|version|purl|SPDX license|license file|hashed file,…":
// the type is CycloneDX's (library, machine-learning-model, data).
package main

import (
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"unicode"
)

// component is a non-Go component of the binary, from a -component SPEC.
type component struct {
	Type, Name, Version, PURL, License, LicenseFile string
	Hashed                                          []string
}

type components []component

func (c *components) String() string { return fmt.Sprint(*c) }

func (c *components) Set(s string) error {
	f := strings.Split(s, "|")
	if len(f) != 7 {
		return fmt.Errorf("component %q: want type|name|version|purl|license|license file|hashed files", s)
	}
	var hashed []string
	if f[6] != "" {
		hashed = strings.Split(f[6], ",")
	}
	*c = append(*c, component{f[0], f[1], f[2], f[3], f[4], f[5], hashed})
	return nil
}

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "licenses":
		err = licensesCmd(os.Args[2:])
	case "sbom":
		err = sbomCmd(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "mkdist: %v\n", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: mkdist licenses -bin BIN -modcache DIR -goroot DIR -component SPEC... -out FILE\n"+
		"       mkdist sbom -in CDX.json -date RFC3339 -component SPEC... -out FILE")
	os.Exit(2)
}

func licensesCmd(args []string) error {
	fs := flag.NewFlagSet("licenses", flag.ExitOnError)
	bin := fs.String("bin", "", "the reqa binary (any GOARCH)")
	modcache := fs.String("modcache", "", "the Go module cache (go env GOMODCACHE)")
	goroot := fs.String("goroot", "", "the Go toolchain that built it (go env GOROOT)")
	out := fs.String("out", "", "file to write")
	var comps components
	fs.Var(&comps, "component", "a non-Go component (repeatable)")
	fs.Parse(args)
	if *bin == "" || *modcache == "" || *goroot == "" || *out == "" {
		usage()
	}
	bi, err := buildinfo.ReadFile(*bin)
	if err != nil {
		return fmt.Errorf("build information of %s: %w", *bin, err)
	}
	text, err := licenses(bi, *modcache, *goroot, comps)
	if err != nil {
		return err
	}
	return writeFile(*out, []byte(text))
}

// licenses returns THIRD_PARTY_LICENSES: a header listing every component,
// then each one's license files in full.
func licenses(bi *debug.BuildInfo, modcache, goroot string, comps components) (string, error) {
	type entry struct {
		title string
		files []string
	}
	var entries []entry
	goFiles, err := licenseFiles(goroot)
	if err != nil {
		return "", fmt.Errorf("the Go toolchain %s: %w", bi.GoVersion, err)
	}
	entries = append(entries, entry{"Go " + bi.GoVersion + " (standard library and runtime)", goFiles})
	for _, d := range bi.Deps {
		m := d
		if d.Replace != nil {
			m = d.Replace
		}
		dir, err := moduleDir(modcache, m.Path, m.Version)
		if err != nil {
			return "", err
		}
		files, err := licenseFiles(dir)
		if err != nil {
			return "", fmt.Errorf("module %s@%s: %w", m.Path, m.Version, err)
		}
		entries = append(entries, entry{"Go module " + m.Path + " " + m.Version, files})
	}
	for _, c := range comps {
		entries = append(entries, entry{fmt.Sprintf("%s %s (%s, %s)", c.Name, c.Version, c.PURL, c.License), []string{c.LicenseFile}})
	}
	var b strings.Builder
	b.WriteString("Third-party software in this reqa binary, and the license of each.\n\n")
	for _, e := range entries {
		fmt.Fprintf(&b, "  %s\n", e.title)
	}
	for _, e := range entries {
		fmt.Fprintf(&b, "\n%s\n%s\n", strings.Repeat("=", 78), e.title)
		for _, f := range e.files {
			data, err := os.ReadFile(f)
			if err != nil {
				return "", err
			}
			fmt.Fprintf(&b, "%s\n-- %s --\n\n%s", strings.Repeat("-", 78), filepath.Base(f), strings.TrimRight(string(data), "\n")+"\n")
		}
	}
	return b.String(), nil
}

// moduleDir is a module's directory in the module cache: upper-case
// letters escaped as "!" and the lower-case letter.
func moduleDir(modcache, path, version string) (string, error) {
	esc := func(s string) string {
		var b strings.Builder
		for _, r := range s {
			if unicode.IsUpper(r) {
				b.WriteByte('!')
				r = unicode.ToLower(r)
			}
			b.WriteRune(r)
		}
		return b.String()
	}
	dir := filepath.Join(modcache, esc(path)+"@"+esc(version))
	if _, err := os.Stat(dir); err != nil {
		return "", fmt.Errorf("module %s@%s not in the module cache (go mod download): %w", path, version, err)
	}
	return dir, nil
}

// licenseFiles lists dir's license and notice files (LICENSE*, LICENCE*,
// COPYING*, NOTICE*, PATENTS), sorted; none is an error.
func licenseFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range ents {
		n := strings.ToUpper(e.Name())
		if e.Type().IsRegular() && (strings.HasPrefix(n, "LICENSE") || strings.HasPrefix(n, "LICENCE") ||
			strings.HasPrefix(n, "COPYING") || strings.HasPrefix(n, "NOTICE") || n == "PATENTS") {
			files = append(files, filepath.Join(dir, e.Name()))
		}
	}
	if len(files) == 0 {
		return nil, errors.New("no license file in " + dir)
	}
	sort.Strings(files)
	return files, nil
}

func sbomCmd(args []string) error {
	fs := flag.NewFlagSet("sbom", flag.ExitOnError)
	in := fs.String("in", "", "cyclonedx-gomod's SBOM (JSON)")
	date := fs.String("date", "", "the build date (RFC 3339), the SBOM's timestamp")
	out := fs.String("out", "", "file to write")
	var comps components
	fs.Var(&comps, "component", "a non-Go component to add (repeatable)")
	fixes := map[string]string{}
	fs.Func("license", "NAME=SPDX: the license of component NAME, where the detector erred or found none (repeatable)", func(s string) error {
		k, v, ok := strings.Cut(s, "=")
		if !ok {
			return fmt.Errorf("-license %q: want NAME=SPDX", s)
		}
		fixes[k] = v
		return nil
	})
	fs.Parse(args)
	if *in == "" || *date == "" || *out == "" {
		usage()
	}
	data, err := os.ReadFile(*in)
	if err != nil {
		return err
	}
	doc, err := sbom(data, *date, comps, fixes)
	if err != nil {
		return fmt.Errorf("%s: %w", *in, err)
	}
	return writeFile(*out, doc)
}

// sbom adds comps to the CycloneDX document data (as components, and as
// dependencies of its main component), sets the licenses fixes names,
// sets its timestamp to date and
// derives its serial number from its contents, so that the same binary
// gives the same SBOM.
func sbom(data []byte, date string, comps components, fixes map[string]string) ([]byte, error) {
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	meta, _ := doc["metadata"].(map[string]any)
	if meta == nil {
		return nil, errors.New("no metadata")
	}
	meta["timestamp"] = date
	mainRef := ""
	if mc, ok := meta["component"].(map[string]any); ok {
		mainRef, _ = mc["bom-ref"].(string)
	}
	list, _ := doc["components"].([]any)
	for _, c := range list {
		if m, ok := c.(map[string]any); ok {
			if id, ok := fixes[fmt.Sprint(m["name"])]; ok {
				m["licenses"] = []any{map[string]any{"license": map[string]any{"id": id}}}
				delete(fixes, fmt.Sprint(m["name"]))
			}
		}
	}
	if len(fixes) > 0 {
		return nil, fmt.Errorf("-license names no component: %v", fixes)
	}
	var refs []any
	for _, c := range comps {
		hashes := []any{}
		for _, f := range c.Hashed {
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			s := sha256.Sum256(b)
			hashes = append(hashes, map[string]any{"alg": "SHA-256", "content": hex.EncodeToString(s[:])})
		}
		m := map[string]any{
			"type": c.Type, "bom-ref": c.PURL, "name": c.Name, "version": c.Version, "purl": c.PURL,
			"licenses": []any{map[string]any{"license": map[string]any{"id": c.License}}},
		}
		if len(hashes) > 0 {
			m["hashes"] = hashes
		}
		list = append(list, m)
		refs = append(refs, c.PURL)
	}
	doc["components"] = list
	if mainRef != "" && len(refs) > 0 {
		deps, _ := doc["dependencies"].([]any)
		found := false
		for _, d := range deps {
			if dm, ok := d.(map[string]any); ok && dm["ref"] == mainRef {
				on, _ := dm["dependsOn"].([]any)
				dm["dependsOn"] = append(on, refs...)
				found = true
			}
		}
		if !found {
			deps = append(deps, map[string]any{"ref": mainRef, "dependsOn": refs})
		}
		doc["dependencies"] = deps
	}
	delete(doc, "serialNumber")
	body, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	s := sha256.Sum256(body)
	u := s[:16]
	u[6] = u[6]&0x0f | 0x50 // a name-based UUID (version 5 layout), from the contents
	u[8] = u[8]&0x3f | 0x80
	doc["serialNumber"] = fmt.Sprintf("urn:uuid:%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

func writeFile(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
