package word_test

import (
	"fmt"

	"github.com/reqa/reqa/index/tokenize/word"
)

func Example() {
	fmt.Printf("%q\n", word.TokenizeSentence(`"Don't stop," she said. It costs $3,000 (roughly).`))
	fmt.Printf("%q\n", word.Tokenize("They cannot come. It's late!"))
	// Output:
	// ["``" "Do" "n't" "stop" "," "''" "she" "said." "It" "costs" "$" "3,000" "(" "roughly" ")" "."]
	// ["They" "can" "not" "come" "." "It" "'s" "late" "!"]
}
