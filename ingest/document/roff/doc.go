// Package roff reads roff manual pages: man(7) and most of mdoc(7). There
// is no well-kept Go roff reader, so this is reqa's own.
//
// The title is a level-1 heading; .SH/.SS (.Sh/.Ss) start sections.
// Tagged paragraphs (.TP, .IP, .It, and DocBook's, asciidoctor's and
// help2man's shapes for them) are definitions; bullets are list items.
// .RS blocks and nested lists under a term carry it (Block.Parents).
// tbl tables are rows. .nf/.EX, .Bd -literal and SYNOPSIS sections are
// code. Escapes, glyphs, strings and the page's own macros are expanded,
// and conditions decided as nroff does. Layout requests, unknown macros,
// comments, .ig blocks and eqn and pic pictures are dropped.
//
// man.go holds the reader, man_roff.go roff's escapes, conditions and
// expressions, man_mdoc.go the mdoc macros. Bad input is a
// [*document.Error]; no input makes the reader panic.
//
// [ParseContext] stops between lines or blocks once its context is done,
// returning the context's error wrapped.
package roff
