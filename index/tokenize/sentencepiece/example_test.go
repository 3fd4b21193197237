package sentencepiece_test

import (
	"errors"
	"fmt"
	"log"

	"github.com/reqa/reqa/index/tokenize/sentencepiece"
)

// A vocabulary in the reference's format: the first six entries are reserved
// (entry 0 is the unknown token), the others are pieces with log-probability
// scores. Like the real one, it holds every single character it knows: an
// unknown character costs nothing, so a character without a piece of its own
// would beat the longer pieces it occurs in.
const toyVocab = `[["\ufffd",0],["<s>",0],["</s>",0],["x1",0],["x2",0],["x3",0],
 ["▁",-2],["▁hello",-3],["▁wor",-4],["ld",-4],["!",-1],["▁world",-9],
 ["h",-6],["e",-6],["l",-6],["o",-6],["w",-6],["r",-6],["d",-6]]`

func ExampleFromJSON() {
	tok, err := sentencepiece.FromJSON([]byte(toyVocab))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(tok.Encode("hello world!"))
	fmt.Printf("%q\n", tok.Pieces("hello world!"))
	// Unknown characters become id 0, one for each run of them.
	fmt.Printf("%v %q\n", tok.Encode("hello ¿¿¿"), tok.Pieces("hello ¿¿¿"))
	// Output:
	// [7 8 9 10]
	// ["▁hello" "▁wor" "ld" "!"]
	// [7 6 0] ["▁hello" "▁" "¿¿¿"]
}

func ExampleNew() {
	tok, err := sentencepiece.New()
	if errors.Is(err, sentencepiece.ErrNoVocabulary) {
		log.Fatal("built without the USE-Lite vocabulary; run make")
	}
	if err != nil {
		log.Fatal(err)
	}
	ids := tok.Encode("Who invented the microwave oven?")
	fmt.Println(len(ids), "tokens")
}
