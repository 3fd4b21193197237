package ingest

// readDocument reads one document's bytes into c: name is the file name
// shown in sources and errors, kind is "md", "html", "pdf" or "txt". The
// reading layer has already checked the bytes are text (no NUL; UTF-16
// decoded to UTF-8) except for "pdf", and bounded their size; the readers
// check UTF-8 and structure themselves.
func readDocument(c *Corpus, name, kind string, data []byte) error {
	switch kind {
	case "md":
		return readText(c, name, data, true)
	case "html":
		return badInput(name, 0, "", "HTML documents are not supported yet: convert it to text or Markdown first")
	case "pdf":
		return badInput(name, 0, "", "PDF documents are not supported yet: convert it to text first (e.g. pdftotext)")
	}
	return readText(c, name, data, false)
}
