package ingest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/reqa/reqa/index"
	"github.com/reqa/reqa/ingest/document"
	"github.com/reqa/reqa/ingest/document/formats"
	"github.com/reqa/reqa/store"
)

// ReadOptions configures [ReadInputsContext]. The zero value reads with no
// memory limit, the default decompression guard and the directory rules
// described there.
type ReadOptions struct {
	// MemoryLimit, when positive, stops reading as soon as the inputs read
	// so far (bytes not yet turned into sentences counted as text) would
	// need more memory to index than this, by [index.EstimateBuildMemory]: a
	// refusal comes before the memory is spent. An uncompressed file
	// whose size alone is over the limit is refused before it is read.
	MemoryLimit int64
	// Dense and HeldBytes complete the estimate: the build embeds the
	// sentences, and holds HeldBytes besides (an appended-to index's
	// vectors).
	Dense     bool
	HeldBytes int64
	// MaxDecompressedBytes bounds what one gzipped input may expand to
	// (0: DefaultMaxDecompressedBytes; negative: no bound), and
	// MaxDecompressionRatio how many times its compressed size (0:
	// DefaultMaxDecompressionRatio; negative: no bound; checked from
	// 16 MiB of output on).
	MaxDecompressedBytes  int64
	MaxDecompressionRatio float64
	// FollowSymlinks makes directory walks follow symbolic links that
	// lead out of the directory given (by default they are skipped with a
	// warning; links within it are followed, once: loops are cut).
	FollowSymlinks bool
	// Include and Exclude filter the files of directory walks by glob
	// patterns (see [MatchGlob]) on their path relative to the directory
	// given: with Include set, only files matching one of its patterns
	// are read; files and directories matching an Exclude pattern are
	// not. Both are listed in Corpus.Files as skipped. Files named on the
	// command line are always read.
	Include, Exclude []string
	// Dedupe keeps the last of JSONL records sharing an id (counted in
	// Corpus.Deduped and a warning) instead of refusing the repeat.
	Dedupe bool
	// Stdin is read for the input "-" (nil: os.Stdin), as StdinKind (the
	// name of a format of formats.All, "jsonl" or "squad"; "": sniffed from
	// its first bytes). Gzipped data is recognised by its magic number.
	Stdin     io.Reader
	StdinKind string
	// Parsers, if set, parses documents in its worker processes, each
	// file within a time and memory budget: a reader that fails there
	// costs that file (skipped in a directory, wrapping ErrReaderFailed),
	// never the run. Nil parses them in this process, unbounded: the
	// fallback to choose only for trusted inputs (the command line
	// always sets it unless --parse-in-process is given).
	Parsers *Parsers
	// Unchanged, if set, is asked about every regular file about to be
	// read (`reqa index --sync` sets it): when it says the file is as the
	// index records it (by size and modification time), the file is not
	// read and is listed in Corpus.SourceFiles without a hash.
	Unchanged func(path string, st os.FileInfo) bool
	// Out, if set, is the index file about to be written: an input that
	// is that very file (os.SameFile, also inside directories) is refused
	// with index.ErrOutIsInput.
	Out string
}

// Defaults of the decompression guard.
const (
	DefaultMaxDecompressedBytes  = 4 << 30
	DefaultMaxDecompressionRatio = 200
	// ratioFloor is the output size from which the ratio is checked:
	// small files of repeated text may compress far.
	ratioFloor = 16 << 20
	// sniffBytes is how much of a file decides whether it is text (git's
	// rule: a NUL in the first 8 KB means binary).
	sniffBytes = 8 << 10
	// checkEvery is how many bytes are read between memory checks.
	checkEvery = 256 << 10
)

var (
	// ErrNotRegular is wrapped by the error for an input that is a named
	// pipe, a device or a socket.
	ErrNotRegular = errors.New("not a regular file")
	// ErrBinary is wrapped by the error for an input that is not text
	// (a NUL byte, UTF-16 that does not decode to text…).
	ErrBinary = errors.New("binary data, not text")
	// ErrChangedWhileRead is wrapped by the error for an input whose size
	// or modification time changed while it was read.
	ErrChangedWhileRead = errors.New("changed while being read")
	// ErrDecompressionBomb is wrapped by the error for a gzipped input
	// that expands past the decompression guard.
	ErrDecompressionBomb = errors.New("decompresses too far")
	// ErrDuplicateID is wrapped by the error for a JSONL record whose id
	// an earlier record has.
	ErrDuplicateID = errors.New("repeated id")
)

// stdinName names standard input in sources and messages.
const stdinName = "stdin"

// ReadInputs reads every input path into one corpus, with no memory limit
// and no way to stop it: ReadInputsContext(context.Background(), paths,
// ReadOptions{}).
func ReadInputs(paths []string) (*Corpus, error) {
	return ReadInputsContext(context.Background(), paths, ReadOptions{})
}

// ReadInputsContext reads every input path into one corpus, detecting each
// one's kind:
//
//   - "-" is standard input (opt.Stdin), of kind opt.StdinKind or sniffed;
//   - a directory holding candidates.jsonl(.gz) is a ReQA dataset (indexed
//     on its own);
//   - other directories are walked (see below);
//   - a file is read by its name: .jsonl is JSONL, .json SQuAD JSON, .md and
//     .markdown Markdown, .html and .htm HTML, .pdf PDF, .rst and .rest
//     reStructuredText, .adoc and .asciidoc AsciiDoc, .org Org mode, .info and .info-N GNU Info, .epub EPUB, .docx
//     Word, .odt OpenDocument text, .man and manual
//     page section suffixes (.1–.9, .3pm, .1ssl…) roff manual pages (plain
//     text when they do not look like roff), anything else plain text; a
//     ".gz" suffix is decompressed.
//
// Every input is read as a stream: cancelling ctx stops the read at once
// (standard input included, even a pipe nobody writes to), opt.MemoryLimit
// is applied while reading, and gzip has a ratio and size guard. Inputs
// named are followed through symbolic links; an input that is not a regular
// file (a FIFO, a device) is refused with ErrNotRegular — "-" is the way to
// read a pipe. Text must be text: a NUL byte (in the first 8 KB: git's
// rule, or later) refuses it with ErrBinary; UTF-16 with a byte-order mark,
// or without one when its NULs say so, is decoded. A file whose size or
// modification time changes while it is read, or that ends before the size
// it had when opened, is refused with ErrChangedWhileRead.
//
// Directory walks read .md, .markdown, .html, .htm, .txt, .text, .pdf,
// .rst, .rest, .adoc, .asciidoc, .org, .info (.info-N), .epub, .docx, .odt, manual page (.1–.9 and the like, .man) and .jsonl files (each optionally
// gzipped: /usr/share/man/man1 reads as it is) in sorted path order,
// skipping hidden directories, files of other kinds (a file named like a
// manual page that is not roff among them), files filtered out by
// opt.Include and opt.Exclude, FIFOs and devices, binary files and symbolic
// links leading out of the directory (unless opt.FollowSymlinks); a file
// whose content is refused (malformed JSONL, invalid UTF-8…) does not stop
// the walk. Every file met is listed in Corpus.Files with its kind and
// status — read, skipped or refused, and why — and those skipped for a
// reason the user may not expect, and those refused, in Corpus.Warnings.
//
// Errors name the file (and line and field where they apply); bad input is
// an *InputError.
func ReadInputsContext(ctx context.Context, paths []string, opt ReadOptions) (*Corpus, error) {
	if len(paths) == 0 {
		return nil, errors.New("no input given")
	}
	r, err := newReader(ctx, opt)
	if err != nil {
		return nil, err
	}
	c := r.c
	for _, p := range paths {
		if p == "-" {
			if r.stdinUsed {
				return nil, errors.New("input -: standard input given twice")
			}
			r.stdinUsed = true
			r.notFiles = true
			c.Sources = append(c.Sources, stdinName)
			if err := r.readStdin(); err != nil {
				return nil, err
			}
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", p, err)
		}
		c.Sources = append(c.Sources, p)
		if st.IsDir() {
			if IsDataset(p) {
				if len(paths) > 1 {
					return nil, fmt.Errorf("input %s: a ReQA dataset must be indexed on its own", p)
				}
				d, err := r.readDataset(p)
				if err != nil {
					return nil, err
				}
				d.Corpus.Files = []FileResult{{Path: p, Kind: "dataset", Status: FileRead}}
				return d.Corpus, nil
			}
			if err := r.readDir(p); err != nil {
				return nil, err
			}
			continue
		}
		kind, _ := kindOfName(p)
		if kind == "" {
			kind = "txt"
		}
		if err := r.readFile(p, kind, st); err != nil {
			r.note(p, kind, FileRefused, err.Error())
			return nil, err
		}
		r.note(p, kind, FileRead, "")
	}
	r.compact()
	if r.notFiles {
		c.SourceFiles = nil
	}
	kept := slices.ContainsFunc(c.SourceFiles, func(f store.SourceFile) bool { return f.SHA256 == "" })
	if len(c.Sentences) == 0 && !kept {
		why := ""
		if len(c.Files) > 0 {
			why = " (" + c.FileSummary() + ")"
			for _, f := range c.Files {
				if f.Status == FileRefused || f.Status == FileSkipped && f.Kind != "other" && f.Kind != "dir" {
					why += fmt.Sprintf("; %s %s: %s", f.Path, f.Status, f.Reason)
					break
				}
			}
		}
		return nil, fmt.Errorf("inputs %s: %w: no sentences found%s", strings.Join(paths, ", "), ErrBadInput, why)
	}
	return c, nil
}

// recordKinds are the inputs that are not documents, each known by its
// extension: JSONL records, and SQuAD JSON (read only when named, never
// in directory walks). With the formats of formats.All they are every
// kind an input may be.
var recordKinds = []struct {
	kind, ext string
	inDirs    bool
}{{"jsonl", ".jsonl", true}, {"squad", ".json", false}}

// StdinKinds returns the kinds ReadOptions.StdinKind may name: the document
// formats' and the record kinds'.
func StdinKinds() []string {
	kinds := formats.Names()
	for _, k := range recordKinds {
		kinds = append(kinds, k.kind)
	}
	return kinds
}

// kindOfName returns the kind a file name says (a format's name, or a
// record kind), ignoring a ".gz" suffix, or "" with the extension when it
// says none of these.
func kindOfName(path string) (kind, ext string) {
	base := strings.ToLower(path)
	base = strings.TrimSuffix(base, ".gz")
	ext = filepath.Ext(base)
	for _, k := range recordKinds {
		if ext == k.ext {
			return k.kind, ext
		}
	}
	return DocumentKind(base), ext
}

// reader holds the state of one ReadInputsContext call.
type reader struct {
	ctx context.Context
	opt ReadOptions
	c   *Corpus
	est index.MemoryEstimator
	// pending counts bytes read and not yet turned into records;
	// pendingFactor is what a pending byte is estimated to cost.
	pending, total int64
	pendingFactor  float64
	sinceCheck     int64
	file           string
	out            os.FileInfo
	stdinUsed      bool
	// notFiles is set when some contexts come from no file (standard
	// input): the corpus then lists no SourceFiles.
	notFiles bool
	// ids maps a JSONL record id to where it was first seen and the
	// contexts it became; dropped marks contexts of records replaced
	// under Dedupe.
	ids     map[string]idSeen
	dropped map[uint32]bool
	// idLog, when not nil, records the changes to ids and dropped, so
	// that those of a file refused in a directory can be undone.
	idLog []idUndo
}

// idUndo is one change to reader.ids (and the contexts it dropped).
type idUndo struct {
	id      string
	prev    idSeen
	had     bool
	dropped []uint32
	deduped bool
}

// undoIDs undoes the changes of log, last first.
func (r *reader) undoIDs(log []idUndo) {
	for i := len(log) - 1; i >= 0; i-- {
		u := log[i]
		if u.had {
			r.ids[u.id] = u.prev
		} else {
			delete(r.ids, u.id)
		}
		for _, d := range u.dropped {
			delete(r.dropped, d)
		}
		if u.deduped {
			r.c.Deduped--
		}
	}
}

type idSeen struct {
	where  string
	lo, hi uint32
}

func newReader(ctx context.Context, opt ReadOptions) (*reader, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	for _, g := range append(append([]string(nil), opt.Include...), opt.Exclude...) {
		if err := checkGlob(g); err != nil {
			return nil, err
		}
	}
	if opt.StdinKind != "" && !slices.Contains(StdinKinds(), opt.StdinKind) {
		return nil, fmt.Errorf("standard input kind %q: want %s", opt.StdinKind, orList(StdinKinds()))
	}
	r := &reader{ctx: ctx, opt: opt, c: &Corpus{}, ids: map[string]idSeen{}}
	if opt.Out != "" {
		if st, err := os.Stat(opt.Out); err == nil {
			r.out = st
		}
	}
	return r, nil
}

// note records what happened to a file.
func (r *reader) note(path, kind string, status FileStatus, reason string) {
	r.c.Files = append(r.c.Files, FileResult{Path: path, Kind: kind, Status: status, Reason: reason})
}

// checkMemory returns a *MemoryLimitError when what was read so far needs
// more memory to index than the limit.
func (r *reader) checkMemory() error {
	if r.opt.MemoryLimit <= 0 {
		return nil
	}
	r.est.Update(&r.c.Corpus)
	need := r.est.Bytes(r.opt.Dense) + r.opt.HeldBytes + int64(r.pendingFactor*float64(r.pending))
	if need <= r.opt.MemoryLimit {
		return nil
	}
	return &MemoryLimitError{Need: need, Limit: r.opt.MemoryLimit, Bytes: r.total, Sentences: len(r.c.Sentences), Contexts: len(r.c.Contexts), File: r.file}
}

// settle is called when the bytes read so far are records: it checks the
// memory estimate with them.
func (r *reader) settle() error {
	r.pending = 0
	return r.checkMemory()
}

// notRegular is the error for an input that is not a regular file.
func notRegular(path string, mode fs.FileMode) error {
	return badInputOf(ErrNotRegular, path, 0, "", "%s: reqa reads regular files and directories; to read a pipe or a device, give - and redirect it to standard input", describeMode(mode))
}

// describeMode says what kind of file that is not regular mode is.
func describeMode(mode fs.FileMode) string {
	what := "not a regular file"
	switch {
	case mode&fs.ModeNamedPipe != 0:
		what = "a named pipe (FIFO), not a regular file"
	case mode&fs.ModeCharDevice != 0:
		what = "a character device, not a regular file"
	case mode&fs.ModeDevice != 0:
		what = "a block device, not a regular file"
	case mode&fs.ModeSocket != 0:
		what = "a socket, not a regular file"
	}
	return what
}

// outIsInput is the error for an input that is the index being written.
func outIsInput(path string) error {
	return fmt.Errorf("input %s: %w: it is the index file --out would replace", path, index.ErrOutIsInput)
}

// input is one input being read.
type input struct {
	name string
	kind string
	f    *os.File    // nil for standard input
	info os.FileInfo // at open
	raw  *countReader
	r    io.Reader // the decoded stream
	gz   bool
	hash hash.Hash // of the bytes read from f
}

func (in *input) close() {
	if in.f != nil {
		in.f.Close()
	}
}

// changed returns an ErrChangedWhileRead error when the file's size or
// modification time now differs from when it was opened, or (atEOF) when
// fewer or more bytes were read than its size then.
func (in *input) changed(atEOF bool) error {
	if in.f == nil {
		return nil
	}
	st, err := in.f.Stat()
	if err != nil {
		return fmt.Errorf("read %s: %w", in.name, err)
	}
	if st.Size() != in.info.Size() || !st.ModTime().Equal(in.info.ModTime()) {
		return fmt.Errorf("read %s: %w: its size or modification time changed (%d → %d bytes, %s → %s); nothing was indexed",
			in.name, ErrChangedWhileRead, in.info.Size(), st.Size(), in.info.ModTime().Format("15:04:05.000000"), st.ModTime().Format("15:04:05.000000"))
	}
	if atEOF && in.raw.n != in.info.Size() {
		return fmt.Errorf("read %s: %w: %d bytes read, but it held %d when opened; nothing was indexed", in.name, ErrChangedWhileRead, in.raw.n, in.info.Size())
	}
	return nil
}

// readAll reads the whole decoded stream.
func (in *input) readAll() ([]byte, error) {
	var buf bytes.Buffer
	if in.info != nil && !in.gz {
		buf.Grow(int(min(in.info.Size(), 1<<30)) + bytes.MinRead)
	}
	_, err := buf.ReadFrom(in.r)
	return buf.Bytes(), err
}

// readFile reads the regular file path (st from os.Stat) as kind.
func (r *reader) readFile(path, kind string, st os.FileInfo) error {
	if !st.Mode().IsRegular() {
		return notRegular(path, st.Mode())
	}
	if r.out != nil && os.SameFile(st, r.out) {
		return outIsInput(path)
	}
	lo := uint32(len(r.c.Contexts))
	if r.opt.Unchanged != nil && r.opt.Unchanged(path, st) {
		r.c.SourceFiles = append(r.c.SourceFiles, store.SourceFile{Path: path, Size: st.Size(), ModTime: st.ModTime(), Contexts: [2]uint32{lo, lo}})
		return nil
	}
	in, err := r.openFile(path, kind)
	if err != nil {
		return err
	}
	defer in.close()
	if err := r.readInput(in); err != nil {
		return err
	}
	// Whatever a reader left unread counts in the hash too.
	if _, err := io.Copy(in.hash, in.f); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	r.c.SourceFiles = append(r.c.SourceFiles, store.SourceFile{Path: path, Size: in.info.Size(), ModTime: in.info.ModTime(),
		SHA256: hex.EncodeToString(in.hash.Sum(nil)), Contexts: [2]uint32{lo, uint32(len(r.c.Contexts))}})
	return nil
}

// openFile opens path without blocking (a FIFO swapped in after the stat
// must not hang the read) and checks it is still a regular file.
func (r *reader) openFile(path, kind string) (*input, error) {
	if err := r.ctx.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, notRegular(path, st.Mode())
	}
	if r.out != nil && os.SameFile(st, r.out) {
		f.Close()
		return nil, outIsInput(path)
	}
	if testHookOpened != nil {
		testHookOpened(path)
	}
	in := &input{name: path, kind: kind, f: f, info: st, gz: strings.HasSuffix(strings.ToLower(path), ".gz"), hash: sha256.New()}
	if err := r.stream(in, &ctxReader{ctx: r.ctx, name: path, r: io.TeeReader(f, in.hash)}); err != nil {
		if cerr := in.changed(false); cerr != nil {
			err = cerr
		}
		f.Close()
		return nil, err
	}
	return in, nil
}

// readStdin reads standard input.
func (r *reader) readStdin() error {
	src := r.opt.Stdin
	if src == nil {
		src = os.Stdin
	}
	// A read from a pipe or a terminal blocks until data comes: it runs
	// in a goroutine the read abandons when ctx is cancelled.
	ar := newAsyncReader(r.ctx, stdinName, src)
	defer ar.stop()
	in := &input{name: stdinName, kind: r.opt.StdinKind}
	br := bufio.NewReaderSize(ar, 64<<10)
	head, err := br.Peek(2)
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	in.gz = len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b
	if err := r.stream(in, br); err != nil {
		r.note(stdinName, in.kind, FileRefused, err.Error())
		return err
	}
	if err := r.readInput(in); err != nil {
		r.note(stdinName, in.kind, FileRefused, err.Error())
		return err
	}
	r.note(stdinName, in.kind, FileRead, "")
	return nil
}

// stream builds in's decoding pipeline over src: byte count,
// decompression with its guard, kind sniffing (when in.kind is ""), the
// text check and decoding (not for PDF, EPUB, DOCX and ODT, which are binary:
// their readers check what they hold) and the memory budget.
func (r *reader) stream(in *input, src io.Reader) error {
	r.file = in.name
	in.raw = &countReader{r: src}
	var rd io.Reader = in.raw
	if in.gz {
		z, err := gzip.NewReader(rd)
		if err != nil {
			if isStop(err) {
				return err
			}
			return badInput(in.name, 0, "", "not a gzip file: %v", err)
		}
		maxBytes, maxRatio := r.opt.MaxDecompressedBytes, r.opt.MaxDecompressionRatio
		if maxBytes == 0 {
			maxBytes = DefaultMaxDecompressedBytes
		}
		if maxRatio == 0 {
			maxRatio = DefaultMaxDecompressionRatio
		}
		rd = &gzipGuard{name: in.name, z: z, raw: in.raw, maxBytes: maxBytes, maxRatio: maxRatio}
	}
	if in.kind == "" {
		br := bufio.NewReaderSize(rd, 64<<10)
		head, err := br.Peek(sniffBytes)
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		in.kind = sniffKind(head)
		rd = br
	}
	r.pendingFactor = index.TextByteCost
	if binaryKind(in.kind) {
		r.pendingFactor = 2
	} else {
		var err error
		var hint int64
		if in.info != nil && !in.gz {
			hint = in.info.Size()
		}
		f := formats.ByName(in.kind)
		if rd, err = textStream(in.name, rd, hint, f != nil && f.NULMarks); err != nil {
			return err
		}
	}
	if r.opt.MemoryLimit > 0 && in.info != nil && !in.gz {
		// The whole file will be read: refuse before reading it.
		r.pending = in.info.Size()
		err := r.checkMemory()
		r.pending = 0
		if err != nil {
			return err
		}
	}
	in.r = &budgetReader{r: r, src: rd}
	return nil
}

// Test hooks: called with a file's path when it has been opened and
// checked, and when it has been read.
var testHookOpened, testHookRead func(path string)

// readInput reads an opened input into the corpus by its kind.
func (r *reader) readInput(in *input) error {
	var err error
	checked := false
	switch in.kind {
	case "jsonl":
		err = r.readJSONL(in)
	case "squad":
		err = r.readSQuAD(in)
	default:
		var data []byte
		if data, err = in.readAll(); err == nil {
			if testHookRead != nil {
				testHookRead(in.name)
			}
			if err = in.changed(true); err != nil {
				return err
			}
			checked = true
			err = r.readDocument(in.name, in.kind, data)
		}
	}
	if testHookRead != nil && !checked {
		testHookRead(in.name)
	}
	if err != nil {
		// A file cut short while read makes bad input: say what happened.
		if cerr := in.changed(false); cerr != nil {
			return cerr
		}
		return err
	}
	if !checked {
		if err := in.changed(true); err != nil {
			return err
		}
	}
	return r.settle()
}

// readDocument reads data, the bytes of the document name, into the
// corpus: parsed in a worker when opt.Parsers is set, whose answer counts
// against the memory limit before it is decoded.
func (r *reader) readDocument(name, kind string, data []byte) error {
	if r.opt.Parsers == nil {
		return readDocument(r.c, name, kind, data)
	}
	admit := func(n int64) error {
		// The answer is decoded text: count it as such (the file's own
		// bytes are counted until then).
		r.pending, r.pendingFactor = n, index.TextByteCost
		return r.checkMemory()
	}
	d, format, err := r.opt.Parsers.Parse(r.ctx, name, kind, data, admit)
	if err != nil {
		return err
	}
	return addParsed(r.c, name, format, d)
}

// binaryKind reports whether files of kind are binary, read without the
// text check (formats.Format.Binary: PDF and the zip containers).
func binaryKind(kind string) bool {
	f := formats.ByName(kind)
	return f != nil && f.Binary
}

// sniffKind guesses the kind of data from its first bytes: the format
// that sniffs them (formats.Detect), else JSONL or SQuAD JSON for a JSON
// object, else txt.
func sniffKind(head []byte) string {
	if f := formats.Detect("", head); f != nil {
		return string(f.Name)
	}
	t := bytes.TrimLeft(bytes.TrimPrefix(head, utf8BOM), " \t\r\n")
	if bytes.HasPrefix(t, []byte("{")) {
		line, _, found := bytes.Cut(t, []byte("\n"))
		if found && isJSONObject(bytes.TrimSpace(line)) {
			return "jsonl"
		}
		if !found && isJSONObject(bytes.TrimSpace(t)) {
			return "jsonl"
		}
		return "squad"
	}
	return string(document.Text)
}

// isStop reports whether err stops a read for a reason outside the data
// (cancellation, the memory limit, an I/O error, a refusal already made).
func isStop(err error) bool {
	var ie *InputError
	var pe *fs.PathError
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, ErrMemoryLimit) || errors.As(err, &ie) || errors.As(err, &pe) || errors.Is(err, ErrChangedWhileRead)
}

// countReader counts the bytes read through it.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// ctxReader stops reading when ctx is done.
type ctxReader struct {
	ctx  context.Context
	name string
	r    io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, fmt.Errorf("read %s: %w", c.name, err)
	}
	n, err := c.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		err = fmt.Errorf("read %s: %w", c.name, err)
	}
	return n, err
}

// asyncReader reads src in a goroutine so that a read blocked on a pipe
// or a terminal can be abandoned when ctx is done.
type asyncReader struct {
	ctx  context.Context
	name string
	ch   chan asyncChunk
	done chan struct{}
	buf  []byte
	err  error
}

type asyncChunk struct {
	b   []byte
	err error
}

func newAsyncReader(ctx context.Context, name string, src io.Reader) *asyncReader {
	a := &asyncReader{ctx: ctx, name: name, ch: make(chan asyncChunk), done: make(chan struct{})}
	go func() {
		for {
			b := make([]byte, 64<<10)
			n, err := src.Read(b)
			select {
			case a.ch <- asyncChunk{b[:n], err}:
			case <-a.done:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return a
}

func (a *asyncReader) Read(p []byte) (int, error) {
	for len(a.buf) == 0 {
		if a.err != nil {
			return 0, a.err
		}
		select {
		case <-a.ctx.Done():
			return 0, fmt.Errorf("read %s: %w", a.name, a.ctx.Err())
		case c := <-a.ch:
			a.buf = c.b
			if c.err != nil {
				a.err = c.err
				if !errors.Is(c.err, io.EOF) {
					a.err = fmt.Errorf("read %s: %w", a.name, c.err)
				}
			}
		}
	}
	if err := a.ctx.Err(); err != nil {
		return 0, fmt.Errorf("read %s: %w", a.name, err)
	}
	n := copy(p, a.buf)
	a.buf = a.buf[n:]
	return n, nil
}

// stop lets the goroutine end (at once if it waits to hand over a chunk;
// a goroutine blocked in a read ends with the process).
func (a *asyncReader) stop() { close(a.done) }

// gzipGuard decompresses, refusing output past its size and ratio bounds.
type gzipGuard struct {
	name     string
	z        *gzip.Reader
	raw      *countReader
	out      int64
	maxBytes int64
	maxRatio float64
}

func (g *gzipGuard) Read(p []byte) (int, error) {
	n, err := g.z.Read(p)
	g.out += int64(n)
	if g.maxBytes > 0 && g.out > g.maxBytes {
		return 0, badInputOf(ErrDecompressionBomb, g.name, 0, "", "decompresses to more than %s (the limit for one gzipped input); decompress it yourself if it is meant to be that large",
			HumanBytes(g.maxBytes))
	}
	if g.maxRatio > 0 && g.out > ratioFloor && float64(g.out) > g.maxRatio*float64(g.raw.n) {
		return 0, badInputOf(ErrDecompressionBomb, g.name, 0, "", "decompresses more than %.0f times (%s from %s read so far): a decompression bomb? decompress it yourself if it is meant to be so",
			g.maxRatio, HumanBytes(g.out), HumanBytes(g.raw.n))
	}
	if err != nil && !errors.Is(err, io.EOF) && !isStop(err) {
		err = badInput(g.name, 0, "", "corrupt gzip data: %v", err)
	}
	return n, err
}

// budgetReader counts the bytes read against the memory limit.
type budgetReader struct {
	r   *reader
	src io.Reader
}

func (b *budgetReader) Read(p []byte) (int, error) {
	n, err := b.src.Read(p)
	b.r.pending += int64(n)
	b.r.total += int64(n)
	b.r.sinceCheck += int64(n)
	if b.r.sinceCheck >= checkEvery {
		b.r.sinceCheck = 0
		if merr := b.r.checkMemory(); merr != nil {
			return n, merr
		}
	}
	return n, err
}
