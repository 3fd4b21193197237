package report_test

import (
	"fmt"

	"github.com/reqa/reqa/rank/eval/report"
)

// A ranker that answers 12 questions first that the baseline misses, and
// misses 3 the baseline answers: how likely is a split this uneven between
// two equally good rankers?
func ExampleSignTest() {
	fmt.Printf("%.4f\n", report.SignTest(12, 3))
	fmt.Printf("%.4f\n", report.SignTest(3, 2))
	// Output:
	// 0.0352
	// 1.0000
}
