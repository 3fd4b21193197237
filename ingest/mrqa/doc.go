// Package mrqa turns question-answering datasets into MultiReQA sentence
// retrieval sets: it reads the MRQA 2019 shared-task files (and SQuAD JSON)
// and writes ReQA dataset directories that package ingest reads and
// `reqa eval` evaluates.
//
// # The recipe
//
// MultiReQA (Guo et al., 2020) makes eight retrieval tasks out of MRQA data
// with a few rules, which Convert applies:
//
//   - questions are kept unchanged;
//   - every context is split into sentences, and every sentence is a
//     candidate answer;
//   - the sentences holding an answer span are the question's gold answers;
//     a span that crosses a sentence boundary is excluded, and a question
//     left without a gold sentence is dropped (GoldContain; GoldStart, the
//     sentence holding the span's first character, is how the shared
//     squad-multireqa-test set was built);
//   - TriviaQA: the [DOC] [TLE] [PAR] tags are removed and the article is
//     read as untagged text (LayoutUntagged);
//   - SearchQA: every [DOC] section is its own context, and the text between
//     [TLE] and [PAR] is that snippet's title: not a candidate, and an answer
//     found only there does not count (LayoutSnippets);
//   - HotpotQA: [PAR] separates documents and [SEP] a document's title from
//     its content; each document is its own context (LayoutDocuments);
//   - NewsQA, RACE, DROP and DuoRC are refused: their questions are
//     underspecified out of their context ("What will be nominated?").
//
// Other MRQA datasets (SQuAD, NaturalQuestions, BioASQ, RelationExtraction,
// TextbookQA) and unknown ones, such as a user's own QA data in the MRQA
// format, are read as they are (LayoutPlain). In NaturalQuestions contexts,
// which keep HTML tags ("<P>", "<Td>"), a sentence made of tags alone is no
// candidate.
//
// # Sentences and candidate ids
//
// By default sentences come from package index/sentence, whose MultiReQA
// splitter reproduces the official boundaries on SQuAD (10,642 sentences,
// boundary F1 0.99; the rest lie in annotated contexts whose official
// boundaries belong to another paragraph). A candidate's id follows the
// official scheme: the dataset, every question id of the MRQA context
// joined by "/", then the sentence index, as in
// "SQuAD_<qid>/<qid>/_3"; the multi-document layouts add the document
// index ("HotpotQA_<qid>/_1_0"). A sentence index counts every sentence the
// splitter found, so an index is skipped where a sentence is no candidate.
// For SQuAD JSON the question ids are SQuAD's.
//
// With annotation files (Options.Boundaries, ReadAnnotations), the official
// MultiReQA sentence-boundary annotations are used instead, with their ids,
// to rebuild the benchmark exactly. An annotated context is found by the
// MRQA question ids in its candidate ids. SQuAD JSON has SQuAD's ids, so
// its paragraphs are matched by how the annotated sentence ends fit the
// text, or, given MRQA files that link SQuAD ids to MRQA qids
// (Options.IDLinks), by question ids. Offsets index the context as
// MultiReQA saw it: the raw MRQA context (LayoutPlain), the untagged text
// (LayoutUntagged), or the documents' texts joined by one space (the
// multi-document layouts; inferred from the annotations' geometry, since
// the HotpotQA and SearchQA texts could not be checked). Input contexts that
// no annotation covers are left out, with their questions, and reported,
// as are annotations no input used.
//
// # SQuAD JSON and the shared squad-multireqa-test set
//
// Converted by text with the official SQuAD dev annotations and GoldStart,
// SQuAD's dev-v1.1.json gives every one of the shared set's 10,642
// candidate ids and 10,570 questions, but 91 candidate texts and 127 gold
// sets differ. They lie in 27 of the 2,067 annotated contexts, whose
// boundaries the official file lists under the question ids of another
// paragraph of the same length; the shared set, built through MRQA
// question ids, follows the ids, the text match follows the boundaries.
// The text match puts each of the 27 on a paragraph the shared set gives
// another of them: they form 12 swaps and one three-cycle. No rule computed
// from the SQuAD file and the annotations alone picks the shared set's
// pairing: within a cycle nothing but the boundaries tells the groups
// apart, and the boundaries point the other way.
//
//   - The question ids (10,507) are all random version-4 UUIDs and the
//     annotation lines are sorted by candidate id, so neither an id, the
//     order of ids within a candidate id, nor a group's place in the file
//     says anything about its paragraph. Titles and paragraph order are not
//     in the annotations.
//   - A cycle's paragraphs have one length, so the last sentence end fits
//     them all.
//   - In each of the 12 swaps both groups have as many question ids as both
//     paragraphs have questions (4 or 5). In the three-cycle the groups have
//     5, 5 and 4 ids and every paragraph 5 questions. Matching id counts to
//     question counts therefore allows every pairing; SQuAD does not record
//     which 63 of its 10,570 questions MRQA dropped, and even knowing it
//     could place at most the group with 4 ids, leaving 26 of the 27
//     undecided.
//   - The boundaries fit the text match's paragraph strictly better in all
//     27 contexts: of their 64 inner sentence ends, 63 fall on a plain
//     sentence end of its text (".", "?" or "!", closing quotes or
//     brackets, white space) and none on one of the shared set's paragraph;
//     there they cut words in half in 14 contexts and 21 answer spans cross
//     a sentence boundary, none in the text match's placement.
//
// Reproducing the shared set thus takes the MRQA question ids themselves:
// given links from SQuAD ids to MRQA qids (Options.IDLinks, reqa convert
// --mrqa-ids; MRQA's SQuAD dev file, not in ../shared, holds both ids),
// Convert places annotated contexts by ids, and with links rebuilt from
// the shared set's own candidate ids the output equals it exactly
// (TestSQuADViaMRQAIDs). Without links Convert keeps the text match, which
// puts every annotated sentence where it fits.
// TestSQuADCrossAssignedContexts checks the numbers above on the data.
//
// # Output
//
// Convert writes contexts.jsonl.gz (context_id, title, text),
// candidates.jsonl.gz (candidate_id, context_id, start, end in Unicode code
// points, end exclusive, text) and questions.jsonl.gz (question_id,
// question, answers, gold_candidate_ids), and split.json when asked. The
// order is deterministic: inputs in the order given, contexts in file order
// (a multi-document context's documents in order), context ids counting
// from 0; candidates by context, then by position; questions in file order,
// each right after its context's candidates; gold ids in candidate order.
// The dataset is written into a temporary directory beside the target and
// renamed into place when complete; an existing non-empty target is kept
// unless Options.Force is set.
//
// # Bad input
//
// MRQA files are read one line at a time and the dataset is written as it
// is made, so memory stays flat however large the input: repeated question
// and candidate ids are found at the end from fixed-size records spooled to
// disk beside the output and sorted a part at a time. (Annotations are read
// whole; a SQuAD JSON file is one JSON document, read whole too.) MRQA char_spans
// are inclusive [start, end] code point offsets, as Python counts; every
// span must lie inside its context and match its answer text (exactly, or
// ignoring case and runs of white space). A bad record — a malformed line,
// a missing field, a span out of range or not matching its text, a
// question id already used (the later question), a context repeated with
// the same question ids (its candidates) — is left out (the line, the question or the span,
// whichever the fault is confined to), counted, and reported with
// file:line and field for the first few; Convert then still writes the
// dataset and returns an error wrapping ErrBadRecords. In a 100,000-line
// file one bad record should not cost the other 99,999, yet it must not go
// unnoticed. Options.Strict makes the first bad record an error instead
// (an *ingest.InputError), and nothing is written.
//
// ComputeStats describes a ReQA directory per dataset, as the paper's
// Tables 3 and 4 do: counts, mean lengths in tokens and question–answer
// and question–context token overlap.
package mrqa
