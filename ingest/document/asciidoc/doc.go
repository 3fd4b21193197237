// Package asciidoc reads AsciiDoc, after Asciidoctor's syntax; it is
// reqa's own reader.
//
// The level-0 title is the document's; "==" to "======" (or "#") titles
// start sections, and a block anchor before one is its slug. Attribute
// entries are recorded and their references replaced. Paragraphs, list
// items (with "+" continuations), description lists (definitions), quote
// blocks and tables (rows with their header) are blocks. Listing,
// literal and source blocks and literal paragraphs are code. Example,
// sidebar, open and admonition blocks are read as their content.
// Passthrough and comment blocks, block titles and attributes, comments,
// block macros and preprocessor directives are dropped; includes are not
// followed. Inline marks, links, cross references and UI macros are
// resolved to their text (asciidoc_inline.go).
//
// Bad input is a [*document.Error]; no input makes the reader panic.
//
// [ParseContext] stops between lines or blocks once its context is done,
// returning the context's error wrapped.
package asciidoc
