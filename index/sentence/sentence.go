// Package sentence splits English text into sentences with a Go
// implementation of the Punkt algorithm (the one behind NLTK's
// sent_tokenize), written from scratch with its own word lists.
//
// Two parameter sets are provided:
//
//   - MultiReQA (used by Split and Texts) reproduces the sentence boundaries
//     of the official MultiReQA data set. Those were made by Punkt without
//     any learned parameters (NLTK's PunktSentenceTokenizer() untrained, not
//     the pre-trained English model): every "word." followed by white space
//     is a boundary, including after "Dr.", "St.", "U.S.", "e.g." or "etc."
//     and even before a lower-case word. Only initials ("J. R. R. Tolkien"),
//     numbers before a lower-case word ("in 1995. the") and ellipses ("...")
//     are exempt, by Punkt's orthographic heuristic. On the MultiReQA SQuAD
//     test set it finds the official 10,642 sentences; the only boundaries
//     that differ are in the 27 paragraphs whose official annotation is that
//     of another paragraph of the same length.
//   - English adds what NLTK's pre-trained English model supplies, from
//     lists written for this package: abbreviations (titles, months, Latin
//     and business abbreviations, "U.S.", "No."), frequent sentence
//     starters and orthographic evidence for them, so that "Dr. Smith" or
//     "e.g. water" are not split while "... in the U.S. The next" is.
//
// Both share the rest of Punkt's behaviour: '.', '?' and '!' end sentences;
// closing quotes and brackets (" ' ) ] }) after the end stay with the
// sentence (`He said "Hi." Then` splits as `He said "Hi."` | `Then`), while
// typographic quotes do not count as punctuation; decimals such as "3.14" are
// never split; an ellipsis ends a sentence only before a likely sentence
// starter (English only); a number with a period before a capitalised word
// ends a sentence, so "1. First" splits after "1."; a line break alone is not
// a boundary (it is white space).
//
// Offsets are byte offsets into the UTF-8 text. White space is what Python's
// str.isspace accepts (see IsSpace). Invalid UTF-8 is accepted: each invalid
// byte behaves like a punctuation symbol. Everything is safe for concurrent
// use, and the work is linear in the length of the text.
//
// The package also tells a sentence that asks from one that tells
// (IsQuestion), and stores one such flag per sentence of an index in a bit
// list (EncodeFlags, DecodeFlags).
package sentence

// Span is one sentence's byte range [Start, End) inside the text it was
// split from. Spans never include leading or trailing white space.
type Span struct {
	Start, End int
}

// Splitter is a Punkt sentence splitter with a fixed set of parameters. It
// is immutable and safe for concurrent use.
type Splitter struct {
	sp splitter
}

// Config lists the parameters of a custom Splitter. All entries are
// case-insensitive.
type Config struct {
	// Abbreviations are word types that a period does not end, written
	// without their final period: "dr", "u.s", "e.g".
	Abbreviations []string
	// SentenceStarters are words that begin a sentence when capitalised after
	// an abbreviation or an ellipsis ("the", "however"). They are also taken
	// as orthographic evidence: capitalised, they start a sentence even
	// after an initial ("class A. The").
	SentenceStarters []string
}

// NewSplitter returns a Splitter with the given parameters. The zero Config
// gives Punkt without parameters, which is MultiReQA.
func NewSplitter(c Config) *Splitter {
	s := &Splitter{}
	if len(c.Abbreviations) > 0 {
		s.sp.p.abbrevs = make(map[string]bool, len(c.Abbreviations))
		for _, a := range c.Abbreviations {
			s.sp.p.abbrevs[lower(a)] = true
		}
	}
	if len(c.SentenceStarters) > 0 {
		s.sp.p.starters = make(map[string]bool, len(c.SentenceStarters))
		s.sp.p.ortho = make(map[string]uint8, len(c.SentenceStarters))
		for _, w := range c.SentenceStarters {
			w = lower(w)
			s.sp.p.starters[w] = true
			// Seen capitalised only at sentence starts and in lower case
			// inside sentences: the orthographic heuristic then calls the
			// capitalised word a sentence starter.
			s.sp.p.ortho[w] = orthoBegUC | orthoMidLC
		}
	}
	s.sp.plain = s.sp.p.empty()
	return s
}

// MultiReQA reproduces the official MultiReQA sentence boundaries (Punkt
// without learned parameters). Split and Texts use it.
var MultiReQA = NewSplitter(Config{})

// English is Punkt with this package's English abbreviations and sentence
// starters, close to NLTK's sent_tokenize with its pre-trained English model.
var English = NewSplitter(Config{Abbreviations: englishAbbreviations, SentenceStarters: englishStarters})

// Split returns the sentences of text in order.
func (s *Splitter) Split(text string) []Span {
	return s.sp.split(text, nil)
}

// AppendSplit appends the sentences of text to dst and returns the extended
// slice, for callers that reuse a buffer.
func (s *Splitter) AppendSplit(dst []Span, text string) []Span {
	n := len(dst)
	out := s.sp.split(text, dst[n:])
	// out shares dst's array when it had room; append then copies in place.
	return append(dst[:n], out...)
}

// Texts returns the sentences of text as strings (sub-strings of text).
func (s *Splitter) Texts(text string) []string {
	spans := s.Split(text)
	out := make([]string, len(spans))
	for i, sp := range spans {
		out[i] = text[sp.Start:sp.End]
	}
	return out
}

// Split returns the sentences of text in order, with the MultiReQA
// boundaries (see the package documentation).
func Split(text string) []Span {
	return MultiReQA.sp.split(text, nil)
}

// Texts returns the sentences of text as strings, as Split finds them.
func Texts(text string) []string {
	return MultiReQA.Texts(text)
}
