package sentencepiece

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/reqa/reqa/internal/testenv"
)

// The reference JavaScript tokenizer, from the npm package
// @energetic-ai/embeddings@0.2.0 that the build extracts into third_party/
// (never committed). Tests that need it skip when it or node is absent.
var referenceJS = filepath.Join("..", "..", "..", "third_party", "energetic-ai-embeddings-0.2.0", "package", "dist", "index.js")

var referenceAll = flag.Bool("reference.all", false, "make TestReferenceNFKC check every code point instead of a sample")

var referenceCount = flag.Int("reference.count", 3000, "number of random strings TestReferenceRandom compares with the JavaScript reference")

// referenceDriver loads the tokenizer section of the bundled reference (from
// its "// lib/stringToChars.ts" marker up to the following "// lib/index.ts"
// marker, which needs no dependencies), builds it over the vocabulary file
// argv[3] and prints, for each JSON string read from stdin (one a line), the
// JSON array of ids encode returns.
const referenceDriver = `
const fs = require("fs");
const src = fs.readFileSync(process.argv[2], "utf8");
const a = src.indexOf("// lib/stringToChars.ts");
const b = src.indexOf("// lib/index.ts", a);
if (a < 0 || b < 0) { throw new Error("tokenizer section not found in " + process.argv[2]); }
const Tokenizer = new Function(src.slice(a, b) + "\nreturn Tokenizer;")();
const tok = new Tokenizer(JSON.parse(fs.readFileSync(process.argv[3], "utf8")));
const out = [];
for (const line of fs.readFileSync(0, "utf8").split("\n")) {
  if (line.length) out.push(JSON.stringify(tok.encode(JSON.parse(line))));
}
process.stdout.write(out.join("\n") + "\n");
`

// referenceEncode runs the reference tokenizer over vocabPath on each of the
// JSON string literals in inputs and returns its ids, skipping the test when
// node or the reference is absent.
func referenceEncode(tb testing.TB, vocabPath string, inputs []string) [][]int32 {
	tb.Helper()
	node := referenceNode(tb)
	if _, err := os.Stat(referenceJS); errors.Is(err, os.ErrNotExist) {
		testenv.Skip(tb, "reference tokenizer absent (%s): extract @energetic-ai/embeddings@0.2.0 into third_party/ (make does it)", referenceJS)
	}
	script := filepath.Join(tb.TempDir(), "driver.js")
	if err := os.WriteFile(script, []byte(referenceDriver), 0o644); err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(node, script, referenceJS, vocabPath)
	cmd.Stdin = strings.NewReader(strings.Join(inputs, "\n") + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("reference tokenizer: %v\n%s", err, stderr.Bytes())
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != len(inputs) {
		tb.Fatalf("reference tokenizer returned %d lines for %d inputs", len(lines), len(inputs))
	}
	ids := make([][]int32, len(lines))
	for i, l := range lines {
		if err := json.Unmarshal([]byte(l), &ids[i]); err != nil {
			tb.Fatalf("reference output line %d: %v", i+1, err)
		}
		if ids[i] == nil {
			ids[i] = []int32{}
		}
	}
	return ids
}

// referenceNode returns the path of node, skipping the test when it is absent
// or normalises with another Unicode version than the one this package
// reproduces (the reference's output depends on it).
func referenceNode(tb testing.TB) string {
	tb.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		testenv.Skip(tb, "node not installed: cannot run the reference tokenizer")
	}
	out, err := exec.Command(node, "-p", "process.versions.unicode").Output()
	if err != nil {
		tb.Fatalf("node -p process.versions.unicode: %v", err)
	}
	if v := strings.TrimSpace(string(out)); v != supplementUnicode {
		// May skip in CI: another Node normalises differently, so its output is no reference; the golden files still test this package.
		tb.Skipf("node normalises with Unicode %s, this package reproduces Unicode %s (Node.js 20.20)", v, supplementUnicode)
	}
	return node
}

// TestReferenceNFKC compares nfkc with String.prototype.normalize("NFKC") on
// code points alone and next to characters that reorder or compose with
// them: by default on every 13th code point and every character of the
// Unicode supplement, with -reference.all on all 1,112,064 (5.6 million
// strings, some ten CPU-seconds).
func TestReferenceNFKC(t *testing.T) {
	node := referenceNode(t)
	var cps []rune
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if utf8.ValidRune(r) && (*referenceAll || r%13 == 0 || inSupplement(r)) {
			cps = append(cps, r)
		}
	}
	for r := range supplementDecomp {
		cps = append(cps, r)
	}
	for pair, p := range supplementCompose {
		cps = append(cps, pair[0], pair[1], p)
	}
	list, err := json.Marshal(cps)
	if err != nil {
		t.Fatal(err)
	}
	listFile := filepath.Join(t.TempDir(), "codepoints.json")
	if err := os.WriteFile(listFile, list, 0o644); err != nil {
		t.Fatal(err)
	}
	const script = `
const cps = JSON.parse(require("fs").readFileSync(process.argv[process.argv.length - 1], "utf8"));
const probes = [(x) => x, (x) => "a" + x + "\u0334", (x) => "a\u0345" + x, (x) => x + "\u0301", (x) => x + "\u1161"];
const out = [];
for (const cp of cps) {
  const x = String.fromCodePoint(cp);
  out.push(probes.map((p) => { const s = p(x), n = s.normalize("NFKC"); return n === s ? "=" : Buffer.from(n).toString("hex"); }).join(" "));
}
process.stdout.write(out.join("\n") + "\n");
`
	raw, err := exec.Command(node, "-e", script, "--", listFile).Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	lines := strings.Split(string(raw), "\n")
	probes := []func(string) string{
		func(x string) string { return x },
		func(x string) string { return "a" + x + "\u0334" },
		func(x string) string { return "a\u0345" + x },
		func(x string) string { return x + "\u0301" },
		func(x string) string { return x + "\u1161" },
	}
	if len(lines) < len(cps) {
		t.Fatalf("node normalised %d code points of %d", len(lines), len(cps))
	}
	bad := 0
	for line, r := range cps {
		want := strings.Fields(lines[line])
		for i, p := range probes {
			s := p(string(r))
			got := "="
			if n := nfkc(s); n != s {
				got = hex.EncodeToString([]byte(n))
			}
			if got != want[i] && bad < 10 {
				t.Errorf("nfkc(%+q) = %s, node gives %s (hex)", s, got, want[i])
			}
			if got != want[i] {
				bad++
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d differences", bad)
	}
	t.Logf("%d code points × %d probes agree with node", len(cps), len(probes))
}

// jsonString returns s as a JSON string literal. Invalid UTF-8 becomes U+FFFD,
// as a JavaScript host decoding the bytes would make it.
func jsonString(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err) // strings always marshal
	}
	return string(b)
}

// compareWithReference encodes texts with tok and with the reference over
// vocabPath and reports every difference. literals, when non-nil, are the JSON
// literals to give the reference instead of texts (for lone surrogates).
func compareWithReference(t *testing.T, tok *Tokenizer, vocabPath string, texts, literals []string) {
	t.Helper()
	if literals == nil {
		for _, s := range texts {
			literals = append(literals, jsonString(s))
		}
	}
	want := referenceEncode(t, vocabPath, literals)
	bad := 0
	for i, s := range texts {
		if got := tok.Encode(s); !slices.Equal(got, want[i]) {
			bad++
			if bad <= 10 {
				t.Errorf("Encode(%+q) [reference input %s]\n got  %v\n want %v\n pieces %q", s, literals[i], got, want[i], tok.Pieces(s))
			}
		}
	}
	t.Logf("%d/%d inputs match the reference", len(texts)-bad, len(texts))
}

// embeddedVocabFile returns the path of the vocabulary the package embeds.
func embeddedVocabFile(tb testing.TB) string {
	tb.Helper()
	embeddedTokenizer(tb) // skips when absent
	return embeddedVocabPath
}

// TestReferenceRandom compares Encode with the reference JavaScript tokenizer
// on random strings built from pieces of the vocabulary and from characters
// that stress normalisation, unknown handling and UTF-16.
func TestReferenceRandom(t *testing.T) {
	tok := embeddedTokenizer(t)
	vocabPath := embeddedVocabFile(t)
	rng := rand.New(rand.NewPCG(1, uint64(*referenceCount)))
	texts := make([]string, *referenceCount)
	for i := range texts {
		texts[i] = randomText(rng, tok, 1+rng.IntN(40))
	}
	compareWithReference(t, tok, vocabPath, texts, nil)
}

// TestReferenceLoneSurrogates checks the claim that U+FFFD, which is what Go
// sees where JavaScript could hold a lone surrogate, tokenizes the same way.
func TestReferenceLoneSurrogates(t *testing.T) {
	tok := embeddedTokenizer(t)
	vocabPath := embeddedVocabFile(t)
	cases := []struct{ literal string }{
		{`"\ud800"`}, {`"a\udc00b"`}, {`"the \ud83d cat"`}, {`"\ud83d\ud83d\ude00x"`},
		{`"x\udfff\u0301y"`}, {`" \ud800 \ud800\ufffd\udbff"`}, {`"caf\ud800e\u0301"`},
	}
	var texts, literals []string
	for _, c := range cases {
		var s string
		if err := json.Unmarshal([]byte(c.literal), &s); err != nil {
			t.Fatal(err)
		}
		texts = append(texts, s)
		literals = append(literals, c.literal)
	}
	compareWithReference(t, tok, vocabPath, texts, literals)
}

// TestReferenceFixtures checks the toy-vocabulary fixtures against the
// reference too, so that the expectations written in testdata are the
// reference's and not merely this package's.
func TestReferenceFixtures(t *testing.T) {
	for _, fx := range loadFixtures(t) {
		t.Run(fx.Name, func(t *testing.T) {
			tok := fx.tokenizer(t)
			var texts []string
			for _, c := range fx.Cases {
				texts = append(texts, c.Text)
			}
			compareWithReference(t, tok, fx.vocabPath(t), texts, nil)
		})
	}
}

// stressRunes are characters chosen to exercise NFKC, the separator, unknowns
// and astral code points.
var stressRunes = []rune(" \t\n\u00a0\u3000\u2002\u2581\u0301\u0300\u0308\u0327\u0345\u0334\u0316" +
	"\ufb01\ufb02\u2460\u2473\uff21\uff41\uff10\u00bd\u2153\u00b2\u2122\u2126\u212b\u2163\u3392\u337f" +
	"\u00e9\u00c5\u1e9b\u0130\u0131\u00df\u1e9e\u03a3\u03c2\u0628\u05d0\u0915\u093c\u0e01\u0e33" +
	"\u1100\u1161\u11a8\uac00\ud55c\u3131\u4e00\u65e5\uff9e\u30ac\u309b" +
	"\u200b\u200d\u2028\ufeff\ufffd\u00ad\u2014\u2019\u201c\u201d\u2026" +
	"\U0001F355\U0001F468\U0001F3FD\U0001D400\U0001D7CE\U0002F800\U00010000\U0010FFFF" +
	"\u0897\u1acf\u1aeb\ua7f1\U0001CCD6\U0001CCF0\U000105C9\U000105D2\U00016D67\U00016D68\U00011383\U000113C2\U000113B8")

// longRunMarks are non-starters of various combining classes, new ones
// included, and characters whose decompositions hold non-starters.
var longRunMarks = []rune("\u0300\u0301\u0316\u0327\u0334\u0345\u0307\u0308\u0344\u0f73\u0f75\u0f81\u3099\u309a" +
	"\u05b0\u05bc\u0e38\u0e48\u1dc0\u20d0\ufe20\U0001d165\U0001d16d\u0897\u1add\u1aeb\U000113ce\u0ddf\u0dca")

// randomText returns a string of n random parts.
func randomText(rng *rand.Rand, tok *Tokenizer, n int) string {
	var b strings.Builder
	for range n {
		switch k := rng.IntN(21); {
		case k < 8: // a vocabulary piece, its separator turned back into a space or dropped
			p := tok.entries[reservedCount+rng.IntN(len(tok.entries)-reservedCount)].text
			switch rng.IntN(3) {
			case 0:
				p = strings.ReplaceAll(p, "\u2581", " ")
			case 1:
				p = strings.ReplaceAll(p, "\u2581", "")
			}
			b.WriteString(p)
		case k < 10:
			b.WriteByte(' ')
		case k < 15:
			b.WriteRune(stressRunes[rng.IntN(len(stressRunes))])
		case k < 17: // any printable ASCII
			b.WriteByte(byte(0x20 + rng.IntN(0x5f)))
		case k < 18: // any BMP code point but surrogates
			r := rune(rng.IntN(0x10000))
			if utf8.ValidRune(r) {
				b.WriteRune(r)
			}
		case k < 19: // any code point
			r := rune(rng.IntN(0x110000))
			if utf8.ValidRune(r) {
				b.WriteRune(r)
			}
		case k < 20: // a Latin letter with stacked combining marks
			b.WriteByte(byte('a' + rng.IntN(26)))
			for range rng.IntN(4) {
				b.WriteRune(rune(0x300 + rng.IntN(0x70)))
			}
		default: // a run of non-starters around norm's stream-safe limit of 30
			b.WriteRune(stressRunes[rng.IntN(len(stressRunes))])
			for range 25 + rng.IntN(15) {
				b.WriteRune(longRunMarks[rng.IntN(len(longRunMarks))])
			}
		}
	}
	return b.String()
}
