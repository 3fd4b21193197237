// Package office reads the zip containers: EPUB books, Word documents
// (.docx) and OpenDocument texts (.odt), with archive/zip and
// encoding/xml. zip.go holds the zip and XML helpers they share, office.go
// the emitting of paragraphs and tables that DOCX and ODT share.
//
// An EPUB's spine gives its XHTML content documents in reading order.
// Each is read by package document's HTML reader into one document; the
// package's dc:title is its title; the navigation document and NCX are
// skipped. Section.Part names the content document, so anchors read
// "book.epub:OEBPS/ch3.xhtml:12#slug".
//
// A DOCX's main part is read paragraph by paragraph. Heading, list, quote
// and code paragraphs are known by their styles (resolved by name through
// styles.xml) and outline levels. Tables are rows with their header.
// Tracked deletions, hidden text, field instructions and tables of
// contents are dropped. A block's Line is the number of the paragraph it
// starts at.
//
// An ODT's content.xml is read the same way: text:h elements and
// paragraphs in heading styles are headings, list paragraphs those in
// text:list. Automatic styles are resolved through the named styles they
// inherit from. Notes, comments, tracked deletions, frames, tables of
// contents and indexes are dropped. A container of another OpenDocument
// kind (a spreadsheet) is refused.
//
// All three bound what they decompress (64 MiB a part, 256 MiB a
// document): a zip bomb is refused, never expanded. What they hold grows
// with the text, not with the elements: XML nested deeper than 4,096
// elements is refused (xml.Decoder keeps every open element), a run of
// empty paragraphs is kept as one, and a document of more than
// [document.MaxBlocks] paragraphs and tables is refused. Bad input is a
// [*document.Error] naming the part ("book.epub: OEBPS/content.opf: …");
// no input makes a reader panic. ParseEPUBContext, ParseDOCXContext and
// ParseODTContext stop between XML tokens once their context is done,
// returning its error wrapped.
package office
