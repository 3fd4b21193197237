package word

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/reqa/reqa/internal/testenv"
)

// TestAgainstNLTK compares TokenizeSentence with real NLTK, run by
// testdata/nltk_oracle.py, on the hand-written cases, the fixtures, random
// texts and (when present) every SQuAD context and candidate sentence of the
// shared test set. NLTK is not available to CI, so the test runs only when
// REQA_NLTK_DESTRUCTIVE names NLTK 3.5's nltk/tokenize/destructive.py (which
// needs nothing but Python 3), or is "installed" to use the installed nltk.
func TestAgainstNLTK(t *testing.T) {
	src := os.Getenv("REQA_NLTK_DESTRUCTIVE")
	if src == "" {
		// May skip in CI: an opt-in (REQA_NLTK_DESTRUCTIVE); NLTK is not a CI prerequisite.
		t.Skip("set REQA_NLTK_DESTRUCTIVE to NLTK 3.5's destructive.py (or \"installed\") to compare with NLTK")
	}
	python, err := exec.LookPath("python3")
	if err != nil {
		testenv.Skip(t, "python3 not found")
	}
	inputs := append([]string(nil), fixtureTexts(t)...)
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 20000; i++ {
		inputs = append(inputs, randomText(r, 1+r.IntN(24)))
	}
	if sharedDir() != "" {
		inputs = append(inputs, readJSONLField(t, "data/squad-multireqa-test/contexts.jsonl.gz", "text")...)
		inputs = append(inputs, readJSONLField(t, "data/squad-multireqa-test/candidates.jsonl.gz", "text")...)
	}
	// JSON cannot carry invalid UTF-8 to Python unchanged.
	valid := inputs[:0]
	for _, s := range inputs {
		if utf8.ValidString(s) {
			valid = append(valid, s)
		}
	}
	inputs = valid

	var stdin bytes.Buffer
	enc := json.NewEncoder(&stdin)
	for _, s := range inputs {
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
	}
	args := []string{filepath.Join("testdata", "nltk_oracle.py")}
	if src != "installed" {
		args = append(args, src)
	}
	cmd := exec.Command(python, args...)
	cmd.Stdin = &stdin
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("oracle: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	fails := 0
	i := 0
	for ; sc.Scan(); i++ {
		if i >= len(inputs) {
			t.Fatal("oracle wrote more lines than it was given")
		}
		var want []string
		if err := json.Unmarshal(sc.Bytes(), &want); err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 {
			want = nil
		}
		if got := TokenizeSentence(inputs[i]); !reflect.DeepEqual(got, want) {
			t.Errorf("TokenizeSentence(%q)\n got %q\nNLTK %q", inputs[i], got, want)
			if fails++; fails == 20 {
				t.Fatal("too many differences")
			}
		}
	}
	if i != len(inputs) {
		t.Fatalf("oracle answered %d of %d inputs", i, len(inputs))
	}
	t.Logf("%d inputs compared with NLTK", len(inputs))
}
