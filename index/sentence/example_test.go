package sentence_test

import (
	"fmt"

	"github.com/reqa/reqa/index/sentence"
)

func Example() {
	text := `The game was played in Santa Clara. He said "It was great." Then he left.`
	for _, s := range sentence.Split(text) {
		fmt.Printf("%d-%d %s\n", s.Start, s.End, text[s.Start:s.End])
	}
	// Output:
	// 0-35 The game was played in Santa Clara.
	// 36-59 He said "It was great."
	// 60-73 Then he left.
}

func ExampleSplitter() {
	text := "Dr. Smith moved to the U.S. in 1990. The rest is history."
	fmt.Printf("%q\n", sentence.Texts(text))         // the MultiReQA boundaries
	fmt.Printf("%q\n", sentence.English.Texts(text)) // with abbreviations
	// Output:
	// ["Dr." "Smith moved to the U.S." "in 1990." "The rest is history."]
	// ["Dr. Smith moved to the U.S. in 1990." "The rest is history."]
}
