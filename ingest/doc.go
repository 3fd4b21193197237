// Package ingest reads inputs into a corpus of contexts and sentences.
//
// Readers turn files into a [Corpus] of contexts and their sentences:
//
//   - documents — Markdown, HTML, PDF, plain text (.txt, and files named
//     README, INSTALL, FAQ and the like: [DocumentKind]), reStructuredText,
//     GNU Info, EPUB, Word (.docx), OpenDocument text (.odt) and roff
//     manual page files, or directories of them — parsed by package
//     ingest/document into sections (a heading and the blocks under it) whose paragraphs,
//     list items, table rows (with their header), quotes and definitions
//     are the candidates; code is never a candidate. A context's title is
//     its heading path ("H1 › H2 › H3"; a list nested in an HTML or roff
//     definition continues it with the definition's term, as man pages
//     nest a command's options under the command), its source the anchor
//     "file:line#slug" (PDF: "file:pPAGE#slug"; EPUB:
//     "book.epub:OEBPS/ch1.xhtml:LINE#slug"; DOCX and ODT: the paragraph
//     number for the line); every sentence keeps its block kind and line (or
//     page). What a context is — a section, a paragraph, a paragraph with
//     its heading path, a window of sentences — is a choice
//     ([ContextChoices], [Corpus.WithContexts]) made when the corpus is
//     indexed;
//   - JSONL: one {"id","title","text"} object per line, a line is a context;
//   - SQuAD JSON (data[].paragraphs[].context), optionally gzipped;
//   - a ReQA dataset directory (contexts, candidates and questions JSONL,
//     optionally gzipped, plus split.json), whose sentence boundaries are used
//     as given.
//
// [ReadInputsContext] reads every input as a stream: cancelling its
// context stops it at once (standard input, "-", included); a memory limit
// is applied while reading, with package index's estimate
// (index.EstimateBuildMemory), so that a refusal comes before the memory
// is spent; gzip has a ratio and size guard; FIFOs and devices are refused
// when named and skipped in directories; text must be text (a NUL byte
// means binary; UTF-16 is decoded; PDF, EPUB, DOCX and ODT are binary
// formats their readers check); a file that changes while read is refused;
// JSONL ids must not repeat. Directory walks follow symbolic links only
// within the tree given, filter files with [MatchGlob] patterns and list
// every file met, read, skipped or refused, in Corpus.Files.
//
// Documents are untrusted: with ReadOptions.Parsers set (as `reqa index`
// sets it), each one is parsed in a worker process of a [Parsers] pool —
// the program re-executed in a hidden worker mode (`reqa __parse-worker`;
// a test binary runs [ServeParseWorker] from TestMain when
// ParseWorkerEnv is set), as Apache Tika's ForkParser does — so that a
// reader that loops, panics or exhausts memory, even with a Go fatal
// error no recover catches, costs that one file: in a directory it is
// skipped, named in Corpus.Files and the warnings with the reason, and
// the walk goes on; named on the command line it is an error wrapping
// [ErrReaderFailed]. The protocol is small: the parent writes a frame
// (8-byte big-endian length, then bytes) holding the gob-encoded format,
// name and CPU budget, and a frame of the file's bytes; the worker answers
// with one frame holding the gob-encoded document.Document (or the
// *InputError, or a recovered panic). Workers (at most GOMAXPROCS, fewer
// under a small memory limit: [ParseWorkersFor]) are started on the first
// document, reused across files, restarted after a failure, killed on
// Close, on a cancelled context (Ctrl-C: at once) and on their file's
// deadline. Budgets, per file: wall clock and CPU time
// [DefaultParseTimeout] (5 s; `--parse-timeout`) plus [ParseTimePerMiB]
// (2 s) per MiB, the CPU time by RLIMIT_CPU set in the worker before each
// file; memory, per worker, a quarter of the build's memory limit within
// 128 MiB–4 GiB ([ParseMemoryFor]; 2 GiB with none) as a Go memory limit
// and, with 128 MiB for the runtime, RLIMIT_AS — what the reader decodes
// counts, not the file's size — and the parsed document's size counts
// against the memory limit before the parent decodes it. A nil
// ReadOptions.Parsers parses in process, unbounded: the fallback for
// trusted input, chosen explicitly (`reqa index --parse-in-process`; the
// library's zero value, which its own tests and datasets use). Datasets,
// JSONL and SQuAD are read in process: they are not documents.
//
// Everything but a ReQA dataset is split into sentences by package
// index/sentence (a document block by block; a table row is one sentence).
// Every sentence keeps its context, title and source ("file:line").
//
// Ingest reads inputs into a corpus and nothing else. A [Corpus] holds the
// records to index (an index.Corpus) and what reading found on the way.
// It is an index.Input: package index builds and appends from it, and
// asks it to form its documents' contexts with the index's choice.
//
// Bad input is reported as an [*InputError] naming the file, the line and,
// where it applies, the field.
package ingest
