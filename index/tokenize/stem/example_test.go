package stem_test

import (
	"fmt"

	"github.com/reqa/reqa/index/tokenize/stem"
)

func Example() {
	fmt.Printf("%q\n", stem.Tokenize("How do I configure it? See the configuration files."))
	fmt.Println(stem.Stem("Installing"), stem.Stem("installs"))
	// Output:
	// ["how" "do" "i" "configur" "it" "?" "see" "the" "configur" "file" "."]
	// instal instal
}
