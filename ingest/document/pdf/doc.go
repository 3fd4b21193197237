// Package pdf reads PDF files on the pure-Go github.com/ledongthuc/pdf.
//
// Text is rebuilt into lines from glyph positions. Hyphenation and hard
// line wraps are rejoined. Larger type is taken as headings. Page numbers,
// running headers and footers and table-of-contents pages are dropped. A
// block's Page is the page it starts on.
//
// The library trusts the file; guard.go does not. Before the library
// reads a file, its structure is checked (the cross-reference /Prev chain
// read once each, object counts, predictor /Columns, the size every
// content, object and xref stream decodes to, object streams' /N and
// /Extends); the page tree is walked here once, linearly, with a visited
// set, and pages take the resources they inherit from that walk, never
// from a /Parent chain. Glyphs are bounded per page and per file, content
// operators per file, and every read of the file checks the context
// ([ParseContext]) and a read budget, so that a loop no check foresaw
// still ends.
//
// Bad input is a [*document.Error] naming the page when known; no input
// makes the reader panic. A canceled parse returns the context's error,
// wrapped.
package pdf
