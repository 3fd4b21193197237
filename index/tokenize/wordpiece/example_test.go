package wordpiece_test

import (
	"fmt"

	"github.com/reqa/reqa/index/tokenize/wordpiece"
)

func Example() {
	tk, err := wordpiece.New()
	if err != nil {
		fmt.Println(err) // wordpiece.ErrNoVocabulary if `make` did not copy the asset
		return
	}
	fmt.Printf("%q\n", tk.Tokenize("Déjà vu: the unaffable Café owner's 3.14 pies!"))
	// Output:
	// ["de" "##ja" "vu" ":" "the" "una" "##ffa" "##ble" "cafe" "owner" "'" "s" "3" "." "14" "pie" "##s" "!"]
}
