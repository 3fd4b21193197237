// Package formats is the one registry of the document formats reqa reads.
//
// [All] lists each [Format]: its name, the extensions and other names of
// its files, how its first bytes are sniffed, whether it is binary or
// must be UTF-8, and its reader. [Detect] finds a file's format by its
// name or its first bytes. [Format.Reader] guesses what plain text (and
// a manual page that is not roff) really is. Package ingest derives from
// All every list of kinds it has: file kinds, directory kinds, standard
// input kinds, binary kinds, sniffing and the messages naming them.
//
// Each Format's ParseContext stops once its context is done (every
// reader checks between its tokens, lines, blocks or pages), returning the
// context's error wrapped; Parse is it without a context. [ParseContext]
// and [Parse] read data in a named format.
//
// Adding a format is one entry in All plus its reader.
//
// Why a package of its own: the readers live in subpackages of document
// (rst, roff, info, office, pdf, asciidoc) that import document for its
// types and Builder. A registry inside document would import them back, a
// cycle. Here it imports document and every reader, and nothing imports
// it but ingest.
package formats
