// Package document holds what a parsed document is, and the readers that
// stand on well-kept libraries.
//
// A [Document] is sections that start at headings. A [Section] has its
// heading path (H1 › H2 › H3) and GitHub-style slug, and holds blocks. A
// [Block] is a paragraph, a list item, a table row carrying its header, a
// quote, a definition or code. Code is kept for display but is never an
// answer candidate. Each block has the line (or PDF page) it starts on. A
// definition knows how long its term is. A block nested in a definition
// knows the terms above it (a man page's options under their command).
//
// [Builder] assembles a Document; every reader uses it, with the text
// helpers in build.go ([Collapse], [RowText], [StyleLevel]…).
//
// The readers here: Markdown on goldmark (CommonMark with GFM tables and
// MkDocs admonitions; front matter skipped), HTML on golang.org/x/net/html
// (site chrome skipped), Org mode on go-org (its HTML read by the HTML
// reader), and plain text ([ParseText]: paragraphs, underlined and
// capitals headings, list items).
//
// The hand-written readers are subpackages: rst (reStructuredText), roff
// (manual pages), info (GNU Info), asciidoc, pdf, and office (EPUB, DOCX,
// ODT). Package formats is the registry of all formats; see its doc for
// why it is a package of its own. internal/doctest holds the readers'
// shared test helpers.
//
// Every input may be hostile (issue 33). The libraries are given input
// they read in linear time: mdguard.go bounds Markdown's nesting,
// indentation and runs of link and emphasis openers before goldmark sees
// it, orgguard.go breaks Org lines over 60 KiB and marks property drawers
// that are never closed before go-org sees it; the HTML reader keeps its
// text without trimming it again for every token. A document holds at
// most [MaxBlocks] blocks and headings. Each reader has a Context form
// (ParseMarkdownContext…) that stops, returning the context's error
// wrapped, once its context is done: [NewBuilderContext] gives the
// Builder the context and readers call [Builder.Check] between tokens,
// lines and blocks.
//
// Bad input is an [*Error] naming the file and line or page; it wraps
// [ErrMalformed]. No input makes a reader panic: [Recover] turns a
// parser's panic into an *Error.
package document
