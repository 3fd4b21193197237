// Command mkmodel converts the Universal Sentence Encoder Lite TF.js graph
// (model.json + weight shards) into the ONNX model reqa embeds. The Makefile
// runs it; it writes the output atomically.
//
//	go run ./cmd/mkmodel -out index/encoder/uselite/assets/model.onnx DIR
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/reqa/reqa/index/encoder/onnxmodel"
)

func main() {
	out := flag.String("out", "", "ONNX file to write")
	flag.Parse()
	if *out == "" || flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: mkmodel -out FILE TFJS_DIR")
		os.Exit(2)
	}
	start := time.Now()
	b, err := onnxmodel.ConvertTFJSDir(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "mkmodel:", err)
		os.Exit(1)
	}
	tmp, err := os.CreateTemp(filepath.Dir(*out), ".model-*")
	if err == nil {
		_, err = tmp.Write(b)
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Chmod(tmp.Name(), 0o644)
		}
		if err == nil {
			err = os.Rename(tmp.Name(), *out)
		}
		if err != nil {
			os.Remove(tmp.Name())
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mkmodel:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "mkmodel: wrote %s (%.1f MB) in %.1fs\n", *out, float64(len(b))/1e6, time.Since(start).Seconds())
}
