package ann

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reqa/reqa/index/ann/npytest"
)

// readNpyF32 reads a little-endian 2-d float32 array in NumPy's .npy
// format (version 1 or 2, C order), as writeNpy writes it.
func readNpyF32(path string) (data []float32, cols int, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, err
	}
	if len(b) < 10 || string(b[:6]) != "\x93NUMPY" {
		return nil, 0, fmt.Errorf("%s: not a .npy file", path)
	}
	var hlen, start int
	switch b[6] {
	case 1:
		hlen, start = int(binary.LittleEndian.Uint16(b[8:10])), 10
	case 2, 3:
		if len(b) < 12 {
			return nil, 0, fmt.Errorf("%s: short header", path)
		}
		hlen, start = int(binary.LittleEndian.Uint32(b[8:12])), 12
	default:
		return nil, 0, fmt.Errorf("%s: .npy version %d", path, b[6])
	}
	if start+hlen > len(b) {
		return nil, 0, fmt.Errorf("%s: short header", path)
	}
	header := string(b[start : start+hlen])
	if !strings.Contains(header, "'descr': '<f4'") || !strings.Contains(header, "'fortran_order': False") {
		return nil, 0, fmt.Errorf("%s: want a C-order little-endian float32 array, header %q", path, header)
	}
	var rows int
	i := strings.Index(header, "'shape': (")
	if i < 0 {
		return nil, 0, fmt.Errorf("%s: no shape in header %q", path, header)
	}
	if _, err := fmt.Sscanf(header[i+len("'shape': ("):], "%d, %d)", &rows, &cols); err != nil {
		return nil, 0, fmt.Errorf("%s: shape in header %q: %w", path, header, err)
	}
	body := b[start+hlen:]
	if rows < 0 || cols <= 0 || len(body) != 4*rows*cols {
		return nil, 0, fmt.Errorf("%s: %d bytes of data for shape (%d, %d)", path, len(body), rows, cols)
	}
	data = make([]float32, rows*cols)
	for j := range data {
		data[j] = math.Float32frombits(binary.LittleEndian.Uint32(body[4*j:]))
	}
	return data, cols, nil
}

// TestNpyRoundTrip reads back what writeNpy wrote, and refuses damage.
func TestNpyRoundTrip(t *testing.T) {
	dir := t.TempDir()
	want := []float32{1, -2.5, 3, 0, float32(math.Pi), 1e-30}
	path := filepath.Join(dir, "x.npy")
	if err := npytest.Write(path, "<f4", 2, 3, func(i int) uint32 { return math.Float32bits(want[i]) }); err != nil {
		t.Fatal(err)
	}
	got, cols, err := readNpyF32(path)
	if err != nil {
		t.Fatal(err)
	}
	if cols != 3 || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("read %v (%d columns), want %v (3)", got, cols, want)
	}
	b, _ := os.ReadFile(path)
	for _, c := range []struct {
		name string
		data []byte
	}{{"truncated", b[:len(b)-1]}, {"not npy", []byte("hello world")}, {"int32", []byte(strings.Replace(string(b), "<f4", "<i4", 1))}} {
		p := filepath.Join(dir, c.name+".npy")
		os.WriteFile(p, c.data, 0o644)
		if _, _, err := readNpyF32(p); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

// TestWriteHnswlibData writes the benchmark data sets for
// testdata/hnswlib_bench.py when REQA_ANN_DUMP names a directory: for each
// set NAME (the 20k set; the 200k set too with REQA_BENCH_LARGE=1),
// NAME-base.npy and NAME-queries.npy (float32) and NAME-gt.npy (int32, the
// ids of Exact's top 10 per query). Without REQA_ANN_DUMP it is skipped.
func TestWriteHnswlibData(t *testing.T) {
	dir := os.Getenv("REQA_ANN_DUMP")
	if dir == "" {
		// May skip in CI: an opt-in (REQA_ANN_DUMP) writing benchmark data for make bench-hnswlib.
		t.Skip("set REQA_ANN_DUMP=dir to write the hnswlib benchmark data")
	}
	for _, s := range benchSets {
		if !s.enabled() {
			continue
		}
		d, gt := fixture(s)
		f32 := func(v []float32) func(int) uint32 {
			return func(i int) uint32 { return math.Float32bits(v[i]) }
		}
		files := []struct {
			suffix     string
			descr      string
			rows, cols int
			word       func(int) uint32
		}{
			{"base", "<f4", d.n(), d.dim, f32(d.base)},
			{"queries", "<f4", d.nq(), d.dim, f32(d.queries)},
			{"gt", "<i4", d.nq(), 10, func(i int) uint32 { return gt[i/10][i%10] }},
		}
		for _, f := range files {
			path := filepath.Join(dir, s.name+"-"+f.suffix+".npy")
			if err := npytest.Write(path, f.descr, f.rows, f.cols, f.word); err != nil {
				t.Fatal(err)
			}
			t.Logf("wrote %s", path)
		}
	}
}
