package rank_test

import (
	"encoding/binary"
	"github.com/reqa/reqa/index"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reqa/reqa/rank"
)

// TestVerifySentenceOffsets: a sentence record resealed with a valid
// checksum but offsets beyond its context passes every checksum; Verify
// still reports it, naming the sentence.
func TestVerifySentenceOffsets(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.reqa")
	buildTestIndex(t, good)
	rep, err := index.Verify(good, index.VerifyOptions{Fusions: rank.CheckFusions})
	if err != nil || !rep.OK() {
		t.Fatalf("healthy index: %v %v", err, rep.Problems)
	}
	bad := filepath.Join(dir, "bad.reqa")
	copyIndex(t, good, bad)
	// Sentence 0: context 0, start 0, length 100,000, no external id.
	payload := binary.AppendUvarint(nil, 0)
	payload = binary.AppendUvarint(payload, 0)
	payload = binary.AppendUvarint(payload, 100000)
	payload = binary.AppendUvarint(payload, 0)
	rewrite(t, bad, []string{"sentences"}, binary.BigEndian.AppendUint32(nil, 0), func([]byte) []byte { return sealed(payload) })
	rep, err = index.Verify(bad, index.VerifyOptions{Fusions: rank.CheckFusions})
	if err != nil {
		t.Fatal(err)
	}
	found := ""
	for _, p := range rep.Problems {
		found += p.Error() + "\n"
	}
	if !strings.Contains(found, "sentence 0: offsets [0,100000) outside context 0") {
		t.Fatalf("problems:\n%s", found)
	}
}
