package mrqa

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
)

// Layout says how the tags MRQA puts into a context ([DOC], [TLE], [PAR],
// [SEP]) are read.
type Layout int

const (
	// LayoutPlain keeps the context as it is, tags and all: SQuAD,
	// NaturalQuestions, BioASQ, RelationExtraction, TextbookQA and datasets
	// this package does not know.
	LayoutPlain Layout = iota
	// LayoutUntagged removes every tag and keeps the rest as one text, the
	// title words included (TriviaQA).
	LayoutUntagged
	// LayoutSnippets makes every [DOC] section its own context; the text
	// between [TLE] and [PAR] is that snippet's title and not a candidate
	// (SearchQA).
	LayoutSnippets
	// LayoutDocuments makes every [PAR]-separated document its own context;
	// [SEP] separates a document's title from its content (HotpotQA).
	LayoutDocuments
)

func (l Layout) String() string {
	switch l {
	case LayoutUntagged:
		return "untagged"
	case LayoutSnippets:
		return "snippets"
	case LayoutDocuments:
		return "documents"
	}
	return "plain"
}

// multiDoc reports whether a layout can yield several contexts from one
// MRQA context; their candidate ids then carry a document index.
func (l Layout) multiDoc() bool { return l == LayoutSnippets || l == LayoutDocuments }

// Dataset describes how one dataset is converted.
type Dataset struct {
	// Name is the canonical name, the prefix of every candidate id
	// ("SQuAD", "TriviaQA", …).
	Name string
	// Layout says how the context's tags are read.
	Layout Layout
	// Refused, when not empty, says why the dataset is not converted.
	Refused string
	// Known is false for datasets this package has no rules for; they are
	// converted with LayoutPlain.
	Known bool
}

// datasets lists the MRQA datasets by canonical name. Aliases are matched
// by DatasetByName.
var datasets = []Dataset{
	{Name: "SQuAD", Layout: LayoutPlain, Known: true},
	{Name: "TriviaQA", Layout: LayoutUntagged, Known: true},
	{Name: "SearchQA", Layout: LayoutSnippets, Known: true},
	{Name: "HotpotQA", Layout: LayoutDocuments, Known: true},
	{Name: "NaturalQuestions", Layout: LayoutPlain, Known: true},
	{Name: "BioASQ", Layout: LayoutPlain, Known: true},
	{Name: "RelationExtraction", Layout: LayoutPlain, Known: true},
	{Name: "TextbookQA", Layout: LayoutPlain, Known: true},
	{Name: "NewsQA", Known: true, Refused: `its questions were written by crowdworkers who saw only a news article's headline and summary, and lean on that article ("What will be nominated?")`},
	{Name: "RACE", Known: true, Refused: `its questions are reading-exam questions about one passage ("What is the best title of the passage?")`},
	{Name: "DROP", Known: true, Refused: `its questions ask for counting and arithmetic over one paragraph they refer to ("How many more yards was the longest field goal than the shortest?")`},
	{Name: "DuoRC", Known: true, Refused: `its questions are about one film's plot and name its characters without introducing them ("Who does Jack kill?")`},
}

// foldName keeps the letters and digits of s, lower-cased.
func foldName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// lookup finds the known dataset whose folded name starts key, so that
// MRQA's "TriviaQA-web", "NaturalQuestionsShort" and "DuoRC.ParaphraseRC"
// are TriviaQA, NaturalQuestions and DuoRC.
func lookup(key string) (Dataset, bool) {
	best := -1
	for i, d := range datasets {
		k := foldName(d.Name)
		if strings.HasPrefix(key, k) && (best < 0 || len(k) > len(foldName(datasets[best].Name))) {
			best = i
		}
	}
	if best < 0 {
		return Dataset{}, false
	}
	return datasets[best], true
}

// DatasetByName returns the rules for a dataset name as found in an MRQA
// header or given by the user. Known names match case-insensitively and
// ignoring punctuation, with MRQA's suffixes ("TriviaQA-web"); an unknown
// name is kept (letters, digits, '-' and '.' only, since '_' and '/' are
// separators in candidate ids) and converted with LayoutPlain.
func DatasetByName(name string) (Dataset, error) {
	if d, ok := lookup(foldName(name)); ok {
		return d, nil
	}
	var b strings.Builder
	for _, r := range name {
		if r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '.') {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return Dataset{}, fmt.Errorf("dataset name %q has no letters or digits", name)
	}
	return Dataset{Name: b.String(), Layout: LayoutPlain}, nil
}

// datasetFromPath guesses a known dataset from a file name
// ("NewsQA_sample.jsonl", "TriviaQA-web.jsonl.gz").
func datasetFromPath(path string) (Dataset, bool) {
	return lookup(foldName(filepath.Base(path)))
}

// refusal is the error for a refused dataset.
func refusal(d Dataset, where string) error {
	return fmt.Errorf("%s: %s is not converted: %s, so out of that context the questions are underspecified and cannot be asked of an open corpus (MultiReQA leaves %s out)",
		where, d.Name, d.Refused, d.Name)
}
