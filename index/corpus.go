package index

import "github.com/reqa/reqa/store"

// Corpus is a set of contexts and their sentences, ready to index. Sentence
// ids are dense from 0 in input order, which is also the tie-break order of
// ranking; sentences are in context order.
type Corpus struct {
	Contexts  []store.Context
	Sentences []store.Sentence
	// Sources lists the inputs read.
	Sources []string
	// Dataset and Digest are set when the corpus is a ReQA dataset.
	Dataset, Digest string
	// SourceFiles, when every context came from a file read whole, lists
	// those files in reading order, each with the range of contexts it
	// produced (Contexts; Sentences is left for the index to fill), its
	// size, modification time and SHA-256; nil otherwise (standard input,
	// a dataset, a corpus made in memory). A file with no SHA256 was not
	// read: its size and modification time are those the index records
	// (ingest's ReadOptions.Unchanged), and Sync keeps its records.
	SourceFiles []store.SourceFile
}

// AddContext appends a context and returns its id.
func (c *Corpus) AddContext(ctx store.Context) uint32 {
	ctx.ID = uint32(len(c.Contexts))
	c.Contexts = append(c.Contexts, ctx)
	return ctx.ID
}

// Input is what Build, Append and BuildEngine index: a *Corpus, or a
// reader's corpus (package ingest) whose documents' contexts are formed
// only once the context choice is known — an append's is the index's own.
type Input interface {
	// Records returns the corpus as read, its contexts not yet formed.
	Records() *Corpus
	// Form returns the corpus with its documents' contexts formed as
	// choice says ("" for the reader's default), and the choice applied:
	// "" when there is nothing to form.
	Form(choice string) (*Corpus, string, error)
}

// Records returns c: a Corpus is its own Input.
func (c *Corpus) Records() *Corpus { return c }

// Form returns c as it is: a Corpus's contexts are final, whatever the
// choice.
func (c *Corpus) Form(string) (*Corpus, string, error) { return c, "", nil }
