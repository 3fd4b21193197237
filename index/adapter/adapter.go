package adapter

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
)

// Kind is an adapter's shape.
type Kind uint8

// The adapter shapes (see the package documentation).
const (
	Linear  Kind = 1
	LowRank Kind = 2
	MLP     Kind = 3
)

// String returns the kind's name as the command line spells it.
func (k Kind) String() string {
	switch k {
	case Linear:
		return "linear"
	case LowRank:
		return "lowrank"
	case MLP:
		return "mlp"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// ParseKind maps "linear", "lowrank" or "mlp" to its Kind.
func ParseKind(s string) (Kind, error) {
	for _, k := range []Kind{Linear, LowRank, MLP} {
		if k.String() == s {
			return k, nil
		}
	}
	return 0, fmt.Errorf("adapter: unknown kind %q (want linear, lowrank or mlp)", s)
}

// Errors returned by Unmarshal and CheckEncoder.
var (
	// ErrCorrupt marks bytes that are not a valid adapter.
	ErrCorrupt = errors.New("adapter: damaged or unknown data")
	// ErrEncoderMismatch marks an adapter trained for another encoder.
	ErrEncoderMismatch = errors.New("adapter: trained for a different encoder")
)

// maxDim bounds the embedding width Unmarshal accepts.
const maxDim = 1 << 13

// Adapter is a trained question-side map on embeddings of width Dim.
type Adapter struct {
	// Kind is the adapter's shape.
	Kind Kind
	// Dim is the embedding width.
	Dim int
	// Hidden is the inner width: the rank of a LowRank adapter, the hidden
	// layer of an MLP, 0 for Linear.
	Hidden int
	// EncoderHash identifies the encoder the adapter was trained for (the
	// index's meta.Dense.Hash).
	EncoderHash string

	// p holds every weight; the views below slice it.
	p []float32
	// Linear: d is Dim×Dim. LowRank/MLP: a is Hidden×Dim, b (MLP only)
	// Hidden, c is Dim×Hidden.
	d, a, b, c []float32
}

// paramCount returns the number of weights of an adapter's shape.
func paramCount(k Kind, dim, hidden int) int {
	switch k {
	case Linear:
		return dim * dim
	case LowRank:
		return 2 * dim * hidden
	case MLP:
		return 2*dim*hidden + hidden
	}
	return 0
}

// newAdapter allocates a zero (identity) adapter.
func newAdapter(k Kind, dim, hidden int, hash string) (*Adapter, error) {
	if dim <= 0 || dim > maxDim {
		return nil, fmt.Errorf("adapter: width %d out of range", dim)
	}
	switch k {
	case Linear:
		hidden = 0
	case LowRank, MLP:
		if hidden <= 0 || hidden > dim {
			return nil, fmt.Errorf("adapter: %s hidden width %d, want 1..%d", k, hidden, dim)
		}
	default:
		return nil, fmt.Errorf("adapter: unknown kind %d", k)
	}
	ad := &Adapter{Kind: k, Dim: dim, Hidden: hidden, EncoderHash: hash}
	ad.p = make([]float32, paramCount(k, dim, hidden))
	ad.views()
	return ad, nil
}

// views slices the weight vector into its matrices.
func (ad *Adapter) views() {
	dim, h := ad.Dim, ad.Hidden
	switch ad.Kind {
	case Linear:
		ad.d = ad.p
	case LowRank:
		ad.a, ad.c = ad.p[:h*dim], ad.p[h*dim:]
	case MLP:
		ad.a, ad.b, ad.c = ad.p[:h*dim], ad.p[h*dim:h*dim+h], ad.p[h*dim+h:]
	}
}

// Params returns the number of trained weights.
func (ad *Adapter) Params() int { return len(ad.p) }

// CheckEncoder returns an error wrapping ErrEncoderMismatch unless the
// adapter was trained for the encoder with this hash and width.
func (ad *Adapter) CheckEncoder(hash string, dim int) error {
	if ad.EncoderHash != hash {
		return fmt.Errorf("%w: adapter was trained for encoder %.12s…, the index's encoder is %.12s…", ErrEncoderMismatch, ad.EncoderHash, hash)
	}
	if ad.Dim != dim {
		return fmt.Errorf("%w: adapter width %d, encoder width %d", ErrEncoderMismatch, ad.Dim, dim)
	}
	return nil
}

// Apply returns the adapted, unit-length question vector f(q). q must have
// the adapter's width (see CheckEncoder); a vector of another width is
// returned normalised but otherwise unchanged.
func (ad *Adapter) Apply(q []float32) []float32 {
	out := make([]float32, len(q))
	copy(out, q)
	if len(q) != ad.Dim {
		normalize(out)
		return out
	}
	z := make([]float32, ad.Hidden)
	ad.forwardRow(q, z, out)
	normalize(out)
	return out
}

// forwardRow computes h = q + delta(q) into h (len Dim, already holding q),
// leaving the post-activation hidden values in z (len Hidden).
func (ad *Adapter) forwardRow(q, z, h []float32) {
	dim := ad.Dim
	switch ad.Kind {
	case Linear:
		for o := 0; o < dim; o++ {
			h[o] += dot(ad.d[o*dim:(o+1)*dim], q)
		}
	case LowRank, MLP:
		for k := range z {
			v := dot(ad.a[k*dim:(k+1)*dim], q)
			if ad.Kind == MLP {
				v += ad.b[k]
				if v < 0 {
					v = 0
				}
			}
			z[k] = v
		}
		hd := ad.Hidden
		for o := 0; o < dim; o++ {
			h[o] += dot(ad.c[o*hd:(o+1)*hd], z)
		}
	}
}

// Binary format (little endian):
//
//	magic "REQAADPT" | version u16 | kind u8 | dim u32 | hidden u32 |
//	hash length u16 | hash | weight count u32 | weights f32… | CRC-32 (IEEE)
//	of everything before it.
var magic = []byte("REQAADPT")

// formatVersion is the current binary format.
const formatVersion = 1

// Marshal returns the adapter's versioned, checksummed binary form.
func (ad *Adapter) Marshal() []byte {
	b := make([]byte, 0, len(magic)+2+1+4+4+2+len(ad.EncoderHash)+4+4*len(ad.p)+4)
	b = append(b, magic...)
	b = binary.LittleEndian.AppendUint16(b, formatVersion)
	b = append(b, byte(ad.Kind))
	b = binary.LittleEndian.AppendUint32(b, uint32(ad.Dim))
	b = binary.LittleEndian.AppendUint32(b, uint32(ad.Hidden))
	b = binary.LittleEndian.AppendUint16(b, uint16(len(ad.EncoderHash)))
	b = append(b, ad.EncoderHash...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(ad.p)))
	for _, x := range ad.p {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

// Unmarshal decodes an adapter written by Marshal. Damaged, truncated or
// unknown data yields an error wrapping ErrCorrupt.
func Unmarshal(b []byte) (*Adapter, error) {
	const fixed = 8 + 2 + 1 + 4 + 4 + 2
	if len(b) < fixed+4+4 || string(b[:8]) != string(magic) {
		return nil, fmt.Errorf("%w: not an adapter", ErrCorrupt)
	}
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrCorrupt)
	}
	if v := binary.LittleEndian.Uint16(body[8:]); v != formatVersion {
		return nil, fmt.Errorf("%w: format version %d, this reqa reads %d", ErrCorrupt, v, formatVersion)
	}
	kind := Kind(body[10])
	dim := binary.LittleEndian.Uint32(body[11:])
	hidden := binary.LittleEndian.Uint32(body[15:])
	hl := int(binary.LittleEndian.Uint16(body[19:]))
	rest := body[fixed:]
	if len(rest) < hl+4 {
		return nil, fmt.Errorf("%w: truncated", ErrCorrupt)
	}
	hash := string(rest[:hl])
	rest = rest[hl:]
	n := binary.LittleEndian.Uint32(rest)
	rest = rest[4:]
	if dim == 0 || dim > maxDim || hidden > maxDim {
		return nil, fmt.Errorf("%w: width %d, hidden %d", ErrCorrupt, dim, hidden)
	}
	ad, err := newAdapter(kind, int(dim), int(hidden), hash)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if kind != Linear && ad.Hidden != int(hidden) || kind == Linear && hidden != 0 {
		return nil, fmt.Errorf("%w: hidden width %d for %s", ErrCorrupt, hidden, kind)
	}
	if int(n) != len(ad.p) || len(rest) != 4*len(ad.p) {
		return nil, fmt.Errorf("%w: %d weights in %d bytes, %s %d×%d needs %d", ErrCorrupt, n, len(rest), kind, dim, hidden, len(ad.p))
	}
	for i := range ad.p {
		x := math.Float32frombits(binary.LittleEndian.Uint32(rest[4*i:]))
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, fmt.Errorf("%w: weight %d is %v", ErrCorrupt, i, x)
		}
		ad.p[i] = x
	}
	return ad, nil
}

// Load decodes a stored adapter and checks it against the index's encoder.
func Load(b []byte, encoderHash string, dim int) (*Adapter, error) {
	ad, err := Unmarshal(b)
	if err != nil {
		return nil, err
	}
	if err := ad.CheckEncoder(encoderHash, dim); err != nil {
		return nil, err
	}
	return ad, nil
}

// normalize scales x to unit length in place (a zero vector stays zero).
func normalize(x []float32) float32 {
	var s float64
	for _, a := range x {
		s += float64(a) * float64(a)
	}
	if s == 0 {
		return 0
	}
	n := math.Sqrt(s)
	inv := float32(1 / n)
	for i := range x {
		x[i] *= inv
	}
	return float32(n)
}
