// Command mkmodel converts the Universal Sentence Encoder Lite TF.js graph
// (model.json + weight shards) into the ONNX model reqa embeds. The Makefile
// runs it; it writes the output atomically.
//
//	go run ./cmd/mkmodel -out index/encoder/uselite/assets/model.onnx DIR
//	go run ./cmd/mkmodel -precision int8 -out index/encoder/uselite/assets/model-int8.onnx DIR
//
// With -precision int8 the matrix multiplies by constant weights run on
// int8 weights (onnxmodel.QuantizeMatMuls), the layer norms are fused
// (onnxmodel.FuseLayerNorms) and run-time shape arithmetic is made static
// (onnxmodel.SimplifyShapes); fp32, the default, is the exact conversion.
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
	precision := flag.String("precision", "fp32", "weights of the matrix multiplies: fp32 or int8")
	flag.Parse()
	if *out == "" || flag.NArg() != 1 || (*precision != "fp32" && *precision != "int8") {
		fmt.Fprintln(os.Stderr, "usage: mkmodel [-precision fp32|int8] -out FILE TFJS_DIR")
		os.Exit(2)
	}
	start := time.Now()
	b, err := convert(flag.Arg(0), *precision)
	if err == nil {
		err = writeAtomic(*out, b)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mkmodel:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "mkmodel: wrote %s (%s, %.1f MB) in %.1fs\n", *out, *precision, float64(len(b))/1e6, time.Since(start).Seconds())
}

// convert translates the TF.js model in dir, quantizing it for int8.
func convert(dir, precision string) ([]byte, error) {
	m, err := onnxmodel.TranslateDir(dir)
	if err != nil {
		return nil, err
	}
	if precision == "int8" {
		if _, err := onnxmodel.SimplifyShapes(m); err != nil {
			return nil, err
		}
		onnxmodel.FuseLayerNorms(m)
		n, err := onnxmodel.QuantizeMatMuls(m)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, fmt.Errorf("%s: no matrix multiply by constant weights to quantize", dir)
		}
	}
	return m.Marshal()
}

// writeAtomic writes b to path through a temporary file in its directory.
func writeAtomic(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".model-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
