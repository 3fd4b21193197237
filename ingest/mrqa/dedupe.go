package mrqa

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/reqa/reqa/ingest"
)

// Duplicate question ids across an input are found after the questions are
// written, with memory that does not grow with the input: every written
// question leaves a fixed-size record (its id's hash, its place in the
// output and in the input) in a spool file; at the end the records are
// sorted a partition at a time, records sharing a hash are checked against
// the questions file, and the questions repeating an earlier id are removed
// from it.

// dupRec is one spooled question.
type dupRec struct {
	hash uint64
	ord  uint64 // 0-based place in questions.jsonl.gz
	file uint32 // index into dupCheck.files
	line uint32 // input line (0 for SQuAD JSON)
	qa   uint32 // index in the context's qas
	_    uint32
}

const dupRecSize = 32

func (r *dupRec) put(b []byte) {
	binary.LittleEndian.PutUint64(b[0:], r.hash)
	binary.LittleEndian.PutUint64(b[8:], r.ord)
	binary.LittleEndian.PutUint32(b[16:], r.file)
	binary.LittleEndian.PutUint32(b[20:], r.line)
	binary.LittleEndian.PutUint32(b[24:], r.qa)
}

func (r *dupRec) get(b []byte) {
	r.hash = binary.LittleEndian.Uint64(b[0:])
	r.ord = binary.LittleEndian.Uint64(b[8:])
	r.file = binary.LittleEndian.Uint32(b[16:])
	r.line = binary.LittleEndian.Uint32(b[20:])
	r.qa = binary.LittleEndian.Uint32(b[24:])
}

// dupCheck spools question records.
type dupCheck struct {
	dir   string
	f     *os.File
	w     *bufio.Writer
	n     uint64
	files []string
	index map[string]uint32
	// locs holds the SQuAD JSON location of questions without a line.
	fields map[uint64]string
	// maxInMem is the most records sorted at once.
	maxInMem int
	buf      [dupRecSize]byte
}

func newDupCheck(dir string) (*dupCheck, error) {
	f, err := os.CreateTemp(dir, "qids-*.spool")
	if err != nil {
		return nil, err
	}
	return &dupCheck{dir: dir, f: f, w: bufio.NewWriterSize(f, 1<<16), index: map[string]uint32{}, fields: map[uint64]string{}, maxInMem: 1 << 18}, nil
}

func hashID(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// add spools a written question.
func (d *dupCheck) add(qid string, ord uint64, u *unit, qa int) error {
	fi, ok := d.index[u.file]
	if !ok {
		fi = uint32(len(d.files))
		d.files = append(d.files, u.file)
		d.index[u.file] = fi
	}
	r := dupRec{hash: hashID(qid), ord: ord, file: fi, line: uint32(u.line), qa: uint32(qa)}
	r.put(d.buf[:])
	d.n++
	_, err := d.w.Write(d.buf[:])
	return err
}

// close removes the spool.
func (d *dupCheck) close() {
	d.f.Close()
	os.Remove(d.f.Name())
}

// suspects returns the records whose hash another record shares, sorting at
// most maxInMem records at a time.
func (d *dupCheck) suspects() ([]dupRec, error) {
	if err := d.w.Flush(); err != nil {
		return nil, err
	}
	parts := 1
	for uint64(parts)*uint64(d.maxInMem)/2 < d.n && parts < 1<<12 {
		parts *= 2
	}
	var shift uint
	for p := parts; p > 1; p /= 2 {
		shift++
	}
	var files []*os.File
	defer func() {
		for _, f := range files {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if parts == 1 {
		files = nil
	} else {
		ws := make([]*bufio.Writer, parts)
		for i := range ws {
			f, err := os.CreateTemp(d.dir, "qids-part-*.spool")
			if err != nil {
				return nil, err
			}
			files = append(files, f)
			ws[i] = bufio.NewWriterSize(f, 1<<14)
		}
		if err := d.scan(d.f, func(r dupRec, b []byte) error {
			_, err := ws[r.hash>>(64-shift)].Write(b)
			return err
		}); err != nil {
			return nil, err
		}
		for _, w := range ws {
			if err := w.Flush(); err != nil {
				return nil, err
			}
		}
	}
	var out []dupRec
	sortPart := func(f *os.File) error {
		var recs []dupRec
		if err := d.scan(f, func(r dupRec, _ []byte) error { recs = append(recs, r); return nil }); err != nil {
			return err
		}
		sort.Slice(recs, func(i, j int) bool {
			if recs[i].hash != recs[j].hash {
				return recs[i].hash < recs[j].hash
			}
			return recs[i].ord < recs[j].ord
		})
		for i := 0; i < len(recs); {
			j := i + 1
			for j < len(recs) && recs[j].hash == recs[i].hash {
				j++
			}
			if j-i > 1 {
				out = append(out, recs[i:j]...)
			}
			i = j
		}
		return nil
	}
	if parts == 1 {
		if err := sortPart(d.f); err != nil {
			return nil, err
		}
	}
	for _, f := range files {
		if err := sortPart(f); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// scan reads every record of a spool file from its start.
func (d *dupCheck) scan(f *os.File, fn func(dupRec, []byte) error) error {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	br := bufio.NewReaderSize(f, 1<<16)
	var b [dupRecSize]byte
	for {
		if _, err := io.ReadFull(br, b[:]); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("read question spool: %w", err)
		}
		var r dupRec
		r.get(b[:])
		if err := fn(r, b[:]); err != nil {
			return err
		}
	}
}

// dedupe finds the records of a spool whose id an earlier record has,
// resolving hashes against the ids in the written file (one JSON object per
// line, the id in field key), calls report for each later duplicate and
// rewrites the file without them. w is the file's writer, closed first.
func (c *converter) dedupe(d *dupCheck, w *jsonlWriter, key string, report func(r dupRec, id string, line []byte) error) error {
	sus, err := d.suspects()
	if err != nil {
		return fmt.Errorf("convert: check %s: %w", key, err)
	}
	if len(sus) == 0 {
		return nil
	}
	byOrd := map[uint64]dupRec{}
	for _, r := range sus {
		byOrd[r.ord] = r
	}
	path := w.f.Name()
	if err := w.close(); err != nil {
		return fmt.Errorf("convert: write %s: %w", path, err)
	}
	ids := map[uint64]string{}
	lines := map[uint64][]byte{}
	if err := eachLine(path, func(ord uint64, line []byte) error {
		if _, ok := byOrd[ord]; ok {
			var obj map[string]json.RawMessage
			if err := json.Unmarshal(line, &obj); err != nil {
				return err
			}
			var id string
			if err := json.Unmarshal(obj[key], &id); err != nil {
				return err
			}
			ids[ord] = id
			lines[ord] = append([]byte(nil), line...)
		}
		return nil
	}); err != nil {
		return fmt.Errorf("convert: check %s: %w", key, err)
	}
	ords := make([]uint64, 0, len(byOrd))
	for o := range byOrd {
		ords = append(ords, o)
	}
	sort.Slice(ords, func(i, j int) bool { return ords[i] < ords[j] })
	seen := map[string]bool{}
	drop := map[uint64]bool{}
	for _, o := range ords {
		if !seen[ids[o]] {
			seen[ids[o]] = true
			continue
		}
		drop[o] = true
		if err := report(byOrd[o], ids[o], lines[o]); err != nil {
			return err
		}
	}
	if len(drop) == 0 {
		return nil
	}
	tmp := path + ".new"
	nw, err := newJSONLWriter(tmp)
	if err != nil {
		return err
	}
	err = eachLine(path, func(ord uint64, line []byte) error {
		if drop[ord] {
			return nil
		}
		if _, err := nw.gz.Write(line); err != nil {
			return err
		}
		_, err := nw.gz.Write([]byte{'\n'})
		return err
	})
	if e := nw.close(); err == nil {
		err = e
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		return fmt.Errorf("convert: rewrite %s: %w", path, err)
	}
	return nil
}

// removeDuplicates leaves out questions whose id an earlier question has,
// and candidates whose id an earlier candidate has (a context repeated with
// the same question ids), reporting each as a bad record.
func (c *converter) removeDuplicates() error {
	err := c.dedupe(c.dups, c.out.quest, "question_id", func(r dupRec, id string, line []byte) error {
		field := fmt.Sprintf("qas[%d].qid", r.qa)
		if f, ok := c.dups.fields[r.ord]; ok {
			field = f
		}
		if err := c.bad(&ingest.InputError{File: c.dups.files[r.file], Line: int(r.line), Field: field,
			Msg: fmt.Sprintf("question id %q was seen before; this question is left out", id)}); err != nil {
			return err
		}
		var x struct {
			Gold []string `json:"gold_candidate_ids"`
		}
		_ = json.Unmarshal(line, &x)
		if len(x.Gold) > 0 {
			if rep := c.byName[datasetOf(x.Gold[0], "")]; rep != nil {
				rep.Questions--
				rep.Dropped[DropDuplicateQID]++
				if len(x.Gold) > 1 {
					rep.MultiGold--
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return c.dedupe(c.candDups, c.out.cands, "candidate_id", func(r dupRec, id string, _ []byte) error {
		if rep := c.byName[datasetOf(id, "")]; rep != nil {
			rep.Candidates--
		}
		field := "qas"
		if f, ok := c.candDups.fields[r.ord]; ok {
			field = f
		}
		return c.bad(&ingest.InputError{File: c.candDups.files[r.file], Line: int(r.line), Field: field,
			Msg: fmt.Sprintf("candidate id %s was made before (a context repeated with the same question ids?); this candidate is left out", truncate(id, 80))})
	})
}

// eachLine calls fn with every line of a gzipped JSON lines file and its
// 0-based number.
func eachLine(path string, fn func(uint64, []byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	z, err := gzip.NewReader(bufio.NewReaderSize(f, 1<<16))
	if err != nil {
		return err
	}
	br := bufio.NewReaderSize(z, 1<<16)
	for ord := uint64(0); ; ord++ {
		b, err := readLine(br)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if len(strings.TrimSpace(string(b))) == 0 {
			ord--
			continue
		}
		if err := fn(ord, b); err != nil {
			return err
		}
	}
}
