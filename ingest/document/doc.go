// Package document parses Markdown, HTML, PDF, reStructuredText, AsciiDoc, Org, GNU Info,
// roff manual pages, EPUB books, Word documents (.docx), OpenDocument text
// (.odt) and plain text into a structured [Document]: sections that start at headings, each
// with its heading path (H1 › H2 › H3) and GitHub-style slug, holding blocks
// (paragraphs, list items, table rows carrying their header, quotes,
// definitions, and code, which is kept for display but is never an answer
// candidate), each with the line (or PDF page) it starts on. A definition
// knows how long its term is (never a sentence of its own), and a block of
// a list nested in a definition knows the terms above it (a man page's
// options under their command).
//
// The readers stand on well-kept parsers: Markdown on goldmark (CommonMark
// with GFM tables and strikethrough, and a block parser of this package's
// for MkDocs admonitions; YAML/TOML front matter skipped; inline and block
// HTML read by the HTML reader), HTML on golang.org/x/net/html's
// tokenizer (script, style, template, nav, head and similar elements
// skipped, entities decoded, pre never a candidate), and PDF on the pure-Go
// github.com/ledongthuc/pdf (text rebuilt into lines from glyph positions,
// hyphenation and hard line wraps rejoined, larger type taken as headings;
// page numbers, running headers and footers and table-of-contents pages
// dropped). Manual pages are read by a roff reader of this package (there
// is no well-kept Go one): man(7) and most of mdoc(7), the title a level-1
// heading and .SH/.SS (.Sh/.Ss) the sections; tagged paragraphs (.TP, .IP,
// .It, and DocBook's, asciidoctor's and help2man's shapes for them) are
// definitions, bullets list items, .RS blocks and nested lists under a
// term carry it, tbl tables are rows, and .nf/.EX, .Bd -literal and
// SYNOPSIS sections code; escapes, glyphs, strings and the page's own
// macros are expanded and conditions decided as nroff does, while layout
// requests, unknown macros, comments, .ig blocks and eqn and pic pictures
// are dropped. reStructuredText is read by a reader of this package too
// (no usable Go parser exists): section adornments give the levels in the
// order they first appear; bullet and enumerated lists, definition, field
// and option lists, simple and grid tables (rows with their header), block
// quotes and line blocks are blocks; literal blocks ("::"), doctests and
// code directives are code; Sphinx object directives (function, class,
// option, envvar, any domain:directive) are definitions of their signature
// with their fields and nested objects under it; admonitions are read
// without their label; comments, targets, toctrees, images and directive
// options are dropped; inline markup, roles, links and substitutions are
// resolved to their text by docutils' recognition rules. AsciiDoc is read
// by a reader of this package as well, after Asciidoctor's syntax: the
// level-0 title is the document's and "==" to "======" (or "#") titles
// start sections, a block anchor before one its slug; attribute entries
// are recorded and their references replaced; paragraphs, list items
// (with "+" continuations), description lists (definitions), quote blocks
// and tables (rows with their header, explicit or implicit) are blocks;
// listing, literal and source blocks and literal paragraphs are code;
// example, sidebar, open and admonition blocks are read as their content
// and admonition paragraphs without their label; passthrough and comment
// blocks, block titles and attributes, comments, block macros and
// preprocessor directives (includes are not followed) are dropped, and
// inline marks, links, cross references and UI macros are resolved to
// their text. Org mode is parsed by go-org and the HTML it writes read as
// HTML: headlines start sections, paragraphs, list items, description
// lists (definitions), tables (rows with the header above the first
// hline) and quote blocks are blocks, src and example blocks code;
// #+TITLE is the document's title; TODO keywords, priorities, tags,
// property drawers, planning lines, keywords, footnotes, raw HTML and
// noexport headlines are dropped. go-org keeps no positions: a block's
// line is the line of its section's headline in the Org source (found by
// matching headline text in order), 0 before the first headline. GNU Info files
// (makeinfo's text output of Texinfo) are read by a reader of this package:
// each node is a section under its title (the Top node's is the
// document's), underlined titles are headings, @table items and @deffn
// lines are definitions, @itemize and @enumerate items list items,
// @multitable rows table rows, and text indented past the text column that
// is not filled prose (@example, @display) is code; menus, index nodes,
// the preamble, tag and indirect tables are dropped; cross references read
// "see Node" and footnotes lose their markers.
//
// EPUB books, Word documents and OpenDocument texts are zip containers
// read with archive/zip and encoding/xml. An EPUB's spine gives its XHTML
// content documents in reading order, each read by the HTML reader into
// one document (the package's dc:title its title; the navigation document
// and NCX skipped).
// A block's line is the line of its content document, which the section
// names (Section.Part): anchors read "book.epub:OEBPS/ch3.xhtml:12#slug",
// so that a line points into a file one can open, and a content document
// not starting with a heading starts a section of its own under the
// heading before it. A DOCX's main part is read paragraph by paragraph:
// heading, list, quote and code paragraphs are known by their styles
// (resolved by name through styles.xml, so a localized Word's are too)
// and outline levels, tables are rows with their header, tracked
// deletions, hidden text, field instructions and tables of contents are
// dropped; DOCX has no lines, so a block's Line is the number of the
// paragraph it starts at. An ODT's content.xml is read the same way: its
// text:h elements and paragraphs in heading styles are headings, list
// paragraphs are those in text:list, quote and code paragraphs are known
// by their styles (automatic styles resolved through the named styles
// they inherit from in styles.xml), tables are rows with their header
// rows, and notes, comments, tracked deletions, frames, tables of contents
// and indexes are dropped; its Line is the paragraph's number too, and a
// container of another OpenDocument kind (a spreadsheet) is refused. All
// three bound what they decompress (64 MiB a part, 256 MiB a document): a
// zip bomb is refused, never expanded.
//
// Plain text (.txt, README, FAQ and other files without an extension
// reqa knows) is read as READMEs write it ([ParseText]): paragraphs
// between blank lines; lines underlined (or over- and underlined) with
// = - ~ * # + ^ _ as headings, levels in the order the styles appear, and
// lines in capitals alone between blank lines as headings below them;
// bullet and numbered items as list items; rules dropped.
//
// Bad input is reported as an [*Error] naming the file and line or page
// (in a zip container, the part: "book.epub: OEBPS/content.opf: …");
// no input makes a reader panic (a parser's panic is turned into an
// [*Error]).
package document
