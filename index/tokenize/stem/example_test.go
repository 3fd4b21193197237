package stem_test

import (
	"fmt"

	"github.com/reqa/reqa/index/tokenize/stem"
)

func Example() {
	fmt.Printf("%q\n", stem.Tokenize("How do I configure it? See the configuration files."))
	fmt.Printf("%q\n", stem.Tokenize("Set user.name with git-config."))
	fmt.Println(stem.Stem("Installing"), stem.Stem("installs"))
	toks, weights := stem.Query("How do I roll back?")
	fmt.Printf("%q %v\n", toks, weights)
	// Output:
	// ["how" "do" "i" "configur" "it" "?" "see" "the" "configur" "file" "."]
	// ["set" "user.nam" "user" "name" "with" "git-config" "git" "config" "."]
	// instal instal
	// ["how" "do" "i" "roll" "back" "?" "rollback"] [0.5 0.5 0.5 1 1 1 1]
}
