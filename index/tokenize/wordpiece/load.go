package wordpiece

import (
	"encoding/json"
	"fmt"
	"strings"
)

// FromJSON builds a Tokenizer from the bytes of a Hugging Face
// tokenizer.json, such as the one shipped next to a BERT-family sentence
// encoder. The file must describe the pipeline Tokenize implements (an
// uncased BertNormalizer, the BertPreTokenizer and a WordPiece model with
// the "##" prefix); any other file is refused with an error naming the
// part that differs. Every added token must also be a vocabulary entry with
// the same id, so that [Tokenizer.ID] can map each token Tokenize returns.
// Unlike [New], FromJSON parses data on every call.
func FromJSON(data []byte) (*Tokenizer, error) {
	v, err := parse(data)
	if err != nil {
		return nil, err
	}
	var f struct {
		AddedTokens []struct {
			ID      int    `json:"id"`
			Content string `json:"content"`
		} `json:"added_tokens"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("wordpiece: parsing tokenizer.json added_tokens: %w", err)
	}
	tk := &Tokenizer{v}
	for _, a := range f.AddedTokens {
		if id, ok := tk.ID(a.Content); !ok || int(id) != a.ID {
			return nil, fmt.Errorf("wordpiece: tokenizer.json added token %q has id %d, which is not its vocabulary entry", a.Content, a.ID)
		}
	}
	return tk, nil
}

// ID returns the vocabulary id of tok, a token as Tokenize returns it:
// a word-initial piece ("un"), a continuation piece with its prefix
// ("##aff"), or a special token ("[UNK]"). ok is false when the vocabulary
// has no such entry.
func (t *Tokenizer) ID(tok string) (id int32, ok bool) {
	if t == nil || t.vocabulary == nil {
		return 0, false
	}
	if rest, cont := strings.CutPrefix(tok, "##"); cont && rest != "" {
		id, ok = t.cont[rest]
		return id, ok
	}
	id, ok = t.initial[tok]
	return id, ok
}

// Size returns the number of vocabulary entries; valid ids are 0..Size()-1.
func (t *Tokenizer) Size() int {
	if t == nil || t.vocabulary == nil {
		return 0
	}
	return len(t.tokens)
}

// AppendIDs appends the vocabulary ids of the tokens of text, as Tokenize
// returns them, to dst and returns the extended slice. A token without a
// vocabulary entry (possible only for an added token of a file loaded by
// [New], which does not check them) is given the unknown token's id, so
// every id is below Size(). No [CLS] or [SEP] is added and nothing is
// truncated.
func (t *Tokenizer) AppendIDs(dst []int32, text string) []int32 {
	if t == nil || t.vocabulary == nil {
		return dst
	}
	unk := t.initial[t.unk]
	for _, tok := range t.Tokenize(text) {
		id, ok := t.ID(tok)
		if !ok {
			id = unk
		}
		dst = append(dst, id)
	}
	return dst
}
