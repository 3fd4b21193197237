// Package pdf reads PDF files on the pure-Go github.com/ledongthuc/pdf.
//
// Text is rebuilt into lines from glyph positions. Hyphenation and hard
// line wraps are rejoined. Larger type is taken as headings. Page numbers,
// running headers and footers and table-of-contents pages are dropped. A
// block's Page is the page it starts on.
//
// Bad input is a [*document.Error] naming the page when known; no input
// makes the reader panic.
package pdf
