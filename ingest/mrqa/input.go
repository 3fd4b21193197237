package mrqa

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
)

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// input is an open input file, decompressed when it is gzipped (detected
// by its magic bytes, whatever its name).
type input struct {
	f    *os.File
	raw  *countingReader
	r    io.Reader
	gz   *gzip.Reader
	size int64
}

func (in *input) Read(p []byte) (int, error) { return in.r.Read(p) }

func (in *input) Close() error {
	if in.gz != nil {
		in.gz.Close()
	}
	return in.f.Close()
}

func openInput(path string) (*input, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	in := &input{f: f, raw: &countingReader{r: f}}
	if st, err := f.Stat(); err == nil {
		in.size = st.Size()
	}
	br := bufio.NewReaderSize(in.raw, 1<<16)
	magic, _ := br.Peek(2)
	in.r = br
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		z, err := gzip.NewReader(br)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		in.gz = z
		in.r = z
	}
	return in, nil
}

// readLine reads one line of any length, without its line ending. It
// returns io.EOF only when no byte is left.
func readLine(br *bufio.Reader) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if err == nil || (err == io.EOF && len(line) > 0) {
		return bytes.TrimRight(line, "\r\n"), nil
	}
	if !errors.Is(err, bufio.ErrBufferFull) {
		return nil, err
	}
	buf := append([]byte(nil), line...)
	for {
		line, err = br.ReadSlice('\n')
		buf = append(buf, line...)
		if err == nil || err == io.EOF {
			return bytes.TrimRight(buf, "\r\n"), nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return nil, err
		}
	}
}

// Format is the kind of an input file.
type Format string

const (
	// FormatMRQA is MRQA shared-task JSON lines.
	FormatMRQA Format = "mrqa"
	// FormatSQuAD is one SQuAD JSON document.
	FormatSQuAD Format = "squad"
)

// detectFormat tells MRQA JSON lines from SQuAD JSON: by name first
// (.jsonl, .json, with an optional .gz), then by content (a SQuAD file is
// one object with a "data" key; MRQA lines are objects with "header" or
// "context").
func detectFormat(path string) (Format, error) {
	name := strings.ToLower(strings.TrimSuffix(strings.ToLower(path), ".gz"))
	switch {
	case strings.HasSuffix(name, ".jsonl"):
		return FormatMRQA, nil
	case strings.HasSuffix(name, ".json"):
		return FormatSQuAD, nil
	}
	in, err := openInput(path)
	if err != nil {
		return "", err
	}
	defer in.Close()
	br := bufio.NewReaderSize(in, 1<<16)
	head, _ := br.Peek(1 << 16)
	first := head
	if i := bytes.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	}
	for _, key := range []string{`"header"`, `"context"`} {
		if bytes.Contains(first, []byte(key)) {
			return FormatMRQA, nil
		}
	}
	if bytes.Contains(head, []byte(`"data"`)) {
		return FormatSQuAD, nil
	}
	return "", fmt.Errorf("%s: neither MRQA JSON lines nor SQuAD JSON (name it .jsonl or .json)", path)
}
