// Package info reads GNU Info files (makeinfo's text output of Texinfo);
// it is reqa's own reader. Latin-1 files are decoded.
//
// Each node is a section under its title; the Top node's title is the
// document's. Underlined titles are headings. @table items and @deffn
// lines are definitions, @itemize and @enumerate items list items,
// @multitable rows table rows. Text indented past the text column that is
// not filled prose (@example, @display) is code. Menus, index nodes, the
// preamble, tag and indirect tables are dropped. Cross references read
// "see Node"; footnotes lose their markers.
//
// Bad input is a [*document.Error]; no input makes the reader panic.
//
// [ParseContext] stops between lines or blocks once its context is done,
// returning the context's error wrapped.
package info
