package mrqa

import (
	"sort"
	"unicode/utf8"
)

// cpIndex converts between code point offsets (as Python and the ReQA
// files count) and byte offsets into a UTF-8 string.
type cpIndex struct {
	s     string
	ascii bool
	// starts[i] is the byte offset of code point i; starts[n] = len(s).
	starts []int32
}

func newCPIndex(s string) *cpIndex {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	x := &cpIndex{s: s, ascii: ascii}
	if !ascii {
		x.starts = make([]int32, 0, len(s)+1)
		for i := range s {
			x.starts = append(x.starts, int32(i))
		}
		x.starts = append(x.starts, int32(len(s)))
	}
	return x
}

// len is the number of code points.
func (x *cpIndex) len() int {
	if x.ascii {
		return len(x.s)
	}
	return len(x.starts) - 1
}

// byteAt returns the byte offset of code point i (0 ≤ i ≤ len()).
func (x *cpIndex) byteAt(i int) int {
	if x.ascii {
		return i
	}
	return int(x.starts[i])
}

// cpAt returns the code point offset of byte offset b, rounding down to
// the start of the code point holding b.
func (x *cpIndex) cpAt(b int) int {
	if x.ascii {
		return b
	}
	i := sort.Search(len(x.starts), func(i int) bool { return int(x.starts[i]) > b })
	return i - 1
}
