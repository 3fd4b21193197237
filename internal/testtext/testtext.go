// Package testtext makes the large generated texts tests and benchmarks of
// several packages read: pseudo-English that tokenizes and splits like
// prose, seeded so that every run sees the same bytes.
package testtext

import (
	"math/rand"
	"strings"
)

// BigLine returns about n bytes of pseudo-English sentences on one line
// (words of one to four syllables from a 20,000-word vocabulary, sentences
// of 6 to 20 words), the same for the same n.
func BigLine(n int) string {
	rng := rand.New(rand.NewSource(1))
	syll := []string{"ka", "lo", "mi", "ne", "ru", "ta", "shi", "po", "ve", "da", "en", "or", "al", "is", "um"}
	vocab := make([]string, 20000)
	for i := range vocab {
		var w strings.Builder
		for range 1 + rng.Intn(4) {
			w.WriteString(syll[rng.Intn(len(syll))])
		}
		vocab[i] = w.String()
	}
	var b strings.Builder
	b.Grow(n + 200)
	for b.Len() < n {
		k := 6 + rng.Intn(15)
		for j := range k {
			w := vocab[rng.Intn(len(vocab))]
			if j == 0 {
				w = strings.ToUpper(w[:1]) + w[1:]
			}
			b.WriteString(w)
			if j < k-1 {
				b.WriteByte(' ')
			}
		}
		b.WriteString(". ")
	}
	return b.String()
}
