package uselite_test

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/reqa/reqa/index/encoder/uselite"
	"github.com/reqa/reqa/internal/testenv"
)

// TestModelPrecision: "" and fp32 are the float32 model, int8 is the
// quantized one (ONNX Runtime's DynamicQuantizeMatMul), both with the same
// vocabulary; anything else is ErrPrecision.
func TestModelPrecision(t *testing.T) {
	if !uselite.Available() {
		testenv.Skip(t, "%v", uselite.ErrNotEmbedded)
	}
	models := map[string][]byte{}
	var vocab0 []byte
	for _, p := range []string{"", uselite.PrecisionFP32, uselite.PrecisionInt8} {
		onnx, vocab, err := uselite.ModelPrecision(p)
		if err != nil {
			t.Fatalf("%q: %v", p, err)
		}
		if vocab0 != nil && !bytes.Equal(vocab, vocab0) {
			t.Errorf("%q: another vocabulary", p)
		}
		vocab0 = vocab
		models[p] = onnx
	}
	if !bytes.Equal(models[""], models[uselite.PrecisionFP32]) {
		t.Error(`"" is not fp32`)
	}
	if bytes.Contains(models[uselite.PrecisionFP32], []byte("DynamicQuantizeMatMul")) || !bytes.Contains(models[uselite.PrecisionInt8], []byte("DynamicQuantizeMatMul")) {
		t.Error("fp32 and int8 models mixed up")
	}
	for _, p := range []string{"fp16", "INT8", "int4"} {
		if _, _, err := uselite.ModelPrecision(p); !errors.Is(err, uselite.ErrPrecision) {
			t.Errorf("%q: error %v, want ErrPrecision", p, err)
		}
	}
}

// ExampleModelPrecision picks the int8 model (compiled, not run: a binary
// built without `make` has no model).
func ExampleModelPrecision() {
	onnx, vocab, err := uselite.ModelPrecision(uselite.PrecisionInt8)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.1f MB model, %d-byte vocabulary\n", float64(len(onnx))/1e6, len(vocab))
}
