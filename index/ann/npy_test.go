package ann

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeNpy writes a little-endian 2-d array (float32 or int32 words) in
// NumPy's .npy format, version 1.0.
func writeNpy(path, descr string, rows, cols int, word func(i int) uint32) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	header := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%d, %d), }", descr, rows, cols)
	// Magic, version and length take 10 bytes; pad so data starts on a
	// 64-byte boundary, header ending in a newline.
	pad := 64 - (10+len(header)+1)%64
	header += strings.Repeat(" ", pad%64) + "\n"
	w.WriteString("\x93NUMPY\x01\x00")
	binary.Write(w, binary.LittleEndian, uint16(len(header)))
	w.WriteString(header)
	var buf [4]byte
	for i := range rows * cols {
		binary.LittleEndian.PutUint32(buf[:], word(i))
		w.Write(buf[:])
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
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
			if err := writeNpy(path, f.descr, f.rows, f.cols, f.word); err != nil {
				t.Fatal(err)
			}
			t.Logf("wrote %s", path)
		}
	}
}
