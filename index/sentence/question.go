package sentence

import (
	"strings"
	"unicode"
)

// IsQuestion reports whether the sentence s asks rather than tells: it
// ends with a question mark (closing quotes and brackets aside), or it has
// no final punctuation and opens the way an English question does, with a
// question word followed by an auxiliary, or an auxiliary followed by a
// pronoun or a determiner ("How do I …", "What is the …", "Can I …", "CAN I PUT MY …"),
// after an optional section number ("9.4 How can I …"). The second form
// catches question headings that lost their question mark: cut by a line
// or page break, truncated in a running page header or a table of
// contents. Sentences such as "When bash is invoked, …", "How the index
// works" or "Which will automatically notice …." are not questions.
//
// A question is not an answer: reqa's default ranker never puts such a
// sentence above one that is not (rank/fuse's DemoteQuestions).
func IsQuestion(s string) bool {
	s = strings.TrimRightFunc(s, func(r rune) bool {
		return IsSpace(r) || strings.ContainsRune(`"')]}»”’`, r)
	})
	if s == "" {
		return false
	}
	if strings.HasSuffix(s, "?") || strings.HasSuffix(s, "？") {
		return true
	}
	last := []rune(s[max(0, len(s)-4):])
	if r := last[len(last)-1]; r == '.' || r == '!' || r == ':' || r == ';' || r == ',' {
		return false
	}
	words := strings.FieldsFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '.' && r != '\'' && r != '’'
	})
	if len(words) > 0 && isSectionNumber(words[0]) {
		words = words[1:]
	}
	if len(words) < 2 {
		return false
	}
	first, second := strings.ToLower(words[0]), strings.ToLower(words[1])
	switch {
	case questionWords[first]:
		return auxiliaries[second]
	case auxiliaries[first]:
		return subjects[second]
	}
	return false
}

// isSectionNumber reports whether w numbers a section: "9", "9.4", "11.10.".
func isSectionNumber(w string) bool {
	w = strings.TrimSuffix(w, ".")
	if w == "" {
		return false
	}
	for _, part := range strings.Split(w, ".") {
		if part == "" || strings.TrimFunc(part, unicode.IsDigit) != "" {
			return false
		}
	}
	return true
}

func set(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

var (
	questionWords = set("how", "what", "why", "where", "which", "who", "whom", "whose", "when")
	auxiliaries   = set("do", "does", "did", "can", "could", "is", "are", "was", "were", "should", "would",
		"will", "shall", "may", "might", "must", "have", "has", "had", "am")
	subjects = set("i", "you", "we", "they", "he", "she", "it", "my", "your", "our", "their", "his", "her",
		"its", "a", "an", "the", "this", "that", "these", "those", "there", "one", "someone", "anyone")
)
