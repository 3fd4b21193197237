//go:build experiment

package eval

import (
	"context"
	"fmt"
	"github.com/reqa/reqa/rank"
	"os"
	"strings"
	"testing"
)

// TestDiagTop1 prints, for every question of a dataset's half and every
// ranker named, the rank of the best gold and the first candidate's id (tab
// separated): the error analysis behind DemoteQuestions.
//
//	REQA_DIAG='INDEX=DATASET' REQA_DIAG_RANKERS=default,bm25-wpm REQA_DIAG_SPLIT=tune \
//	go test -tags experiment -run TestDiagTop1 -v ./rank/
//
// REQA_DIAG_TEXT=1 also prints, for every question not answered first, its
// text, the first candidate's and the gold candidates'.
func TestDiagTop1(t *testing.T) {
	spec := os.Getenv("REQA_DIAG")
	if spec == "" {
		// May skip in CI: an experiment (tag experiment) run by hand with REQA_DIAG.
		t.Skip("set REQA_DIAG INDEX=DATASET to print every question's outcome")
	}
	parts := strings.Split(spec, "=")
	d, e := openDomain(t, parts[0], parts[1])
	split := os.Getenv("REQA_DIAG_SPLIT")
	if split == "" {
		split = "test"
	}
	eq := splitQuestions(t, e, d, split)
	for _, name := range strings.Split(os.Getenv("REQA_DIAG_RANKERS"), ",") {
		s, err := rank.ParseSpec(name)
		if err != nil {
			t.Fatal(err)
		}
		r, err := e.Resolve(s)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := Run(context.Background(), r, eq, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, q := range eq {
			fmt.Printf("%s\t%s\t%d\t%s\n", name, q.ID, rs[i].Rank, e.Sentences()[rs[i].Top].ExtID)
			if os.Getenv("REQA_DIAG_TEXT") != "" && rs[i].Rank != 1 {
				top, err := e.SentenceText(rs[i].Top)
				if err != nil {
					t.Fatal(err)
				}
				fmt.Printf("\tQ: %s\n\tTOP: %s\n", q.Text, top)
				for _, g := range q.Gold {
					gt, err := e.SentenceText(g)
					if err != nil {
						t.Fatal(err)
					}
					fmt.Printf("\tGOLD %s: %s\n", e.Sentences()[g].ExtID, gt)
				}
			}
		}
	}
}
