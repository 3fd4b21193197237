package ort

import (
	"errors"
	"fmt"
	"sync"

	onnx "github.com/yalue/onnxruntime_go"
)

// Model is an ONNX Runtime session over any model with integer inputs and
// one float output: the one wrapper of reqa's ONNX Runtime sessions (the
// USE-Lite Session and the Hugging Face–layout encoder of package encoder
// both run on it). It is safe for concurrent use; Close waits for the runs
// in flight.
type Model struct {
	mu     sync.RWMutex
	sess   *onnx.DynamicAdvancedSession // nil once closed
	inputs []string
	output string
}

// Input is one input tensor of a run: int64 data of a shape, handed to the
// model as int32 when Int32 is set (the model's input type).
type Input struct {
	Shape []int64
	Data  []int64
	Int32 bool
}

// OpenModel compiles model with the named inputs (in the order Run receives
// them) and output. Init must have succeeded. Options.Threads bounds the
// threads of one run (0: one per core); inter-op parallelism is off and
// idle threads sleep unless Options.Spin.
func OpenModel(model []byte, inputs []string, output string, opts Options) (*Model, error) {
	env.Lock()
	ready := env.path != ""
	env.Unlock()
	if !ready {
		return nil, errors.New("ort: model opened before Init")
	}
	if len(model) == 0 {
		return nil, errors.New("ort: empty model")
	}
	if opts.Threads < 0 {
		return nil, fmt.Errorf("ort: negative thread count %d", opts.Threads)
	}
	so, err := onnx.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("ort: session options: %w", err)
	}
	defer so.Destroy()
	if opts.Threads > 0 {
		if err := so.SetIntraOpNumThreads(opts.Threads); err != nil {
			return nil, fmt.Errorf("ort: set threads: %w", err)
		}
	}
	if err := so.SetInterOpNumThreads(1); err != nil {
		return nil, fmt.Errorf("ort: set inter-op threads: %w", err)
	}
	if !opts.Spin {
		if err := so.AddSessionConfigEntry("session.intra_op.allow_spinning", "0"); err != nil {
			return nil, fmt.Errorf("ort: disable spinning: %w", err)
		}
	}
	s, err := onnx.NewDynamicAdvancedSessionWithONNXData(model, inputs, []string{output}, so)
	if err != nil {
		return nil, fmt.Errorf("ort: create session: %w", err)
	}
	return &Model{sess: s, inputs: inputs, output: output}, nil
}

// Run runs the model on inputs (one per input name, in order) and returns
// the output's shape and a copy of its data.
func (m *Model) Run(inputs []Input) (shape []int64, data []float32, err error) {
	if len(inputs) != len(m.inputs) {
		return nil, nil, fmt.Errorf("ort: %d inputs for a model of %d", len(inputs), len(m.inputs))
	}
	vals := make([]onnx.Value, 0, len(inputs))
	defer func() {
		for _, v := range vals {
			v.Destroy()
		}
	}()
	for k, in := range inputs {
		var v onnx.Value
		if in.Int32 {
			d32 := make([]int32, len(in.Data))
			for i, x := range in.Data {
				d32[i] = int32(x)
			}
			v, err = onnx.NewTensor(onnx.NewShape(in.Shape...), d32)
		} else {
			v, err = onnx.NewTensor(onnx.NewShape(in.Shape...), in.Data)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("ort: input %s: %w", m.inputs[k], err)
		}
		vals = append(vals, v)
	}
	outputs := []onnx.Value{nil}
	m.mu.RLock()
	if m.sess == nil {
		m.mu.RUnlock()
		return nil, nil, errors.New("ort: session is closed")
	}
	err = m.sess.Run(vals, outputs)
	m.mu.RUnlock()
	if err != nil {
		return nil, nil, fmt.Errorf("ort: run: %w", err)
	}
	defer outputs[0].Destroy()
	ot, ok := outputs[0].(*onnx.Tensor[float32])
	if !ok {
		return nil, nil, fmt.Errorf("ort: output %s is not a float tensor", m.output)
	}
	return ot.GetShape(), append([]float32(nil), ot.GetData()...), nil
}

// Close releases the session. Later runs return an error.
func (m *Model) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.sess == nil {
		return nil
	}
	err := m.sess.Destroy()
	m.sess = nil
	if err != nil {
		return fmt.Errorf("ort: close session: %w", err)
	}
	return nil
}

// ElemType is the element type of a model's tensor input or output.
type ElemType int

// The element types reqa's encoders use; ElemOther is any other value
// (another element type, or not a tensor).
const (
	ElemOther ElemType = iota
	ElemInt64
	ElemInt32
	ElemFloat
)

// TensorInfo describes one input or output of a model.
type TensorInfo struct {
	Name string
	Type ElemType
	// Dims is the shape; a dimension ≤ 0 is symbolic (dynamic).
	Dims []int64
	// Desc describes it in ONNX Runtime's words, for messages.
	Desc string
}

// Inspect returns a model's inputs and outputs. Init must have succeeded.
func Inspect(model []byte) (inputs, outputs []TensorInfo, err error) {
	ins, outs, err := onnx.GetInputOutputInfoWithONNXData(model)
	if err != nil {
		return nil, nil, err
	}
	conv := func(xs []onnx.InputOutputInfo) []TensorInfo {
		out := make([]TensorInfo, len(xs))
		for i, x := range xs {
			t := ElemOther
			if x.OrtValueType == onnx.ONNXTypeTensor {
				switch x.DataType {
				case onnx.TensorElementDataTypeInt64:
					t = ElemInt64
				case onnx.TensorElementDataTypeInt32:
					t = ElemInt32
				case onnx.TensorElementDataTypeFloat:
					t = ElemFloat
				}
			}
			out[i] = TensorInfo{Name: x.Name, Type: t, Dims: append([]int64(nil), x.Dimensions...), Desc: x.String()}
		}
		return out
	}
	return conv(ins), conv(outs), nil
}
