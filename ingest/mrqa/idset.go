package mrqa

import "hash/fnv"

// idSet remembers question ids to catch duplicates, in 16 bytes or less
// per id: it keeps 64-bit FNV-1a hashes in an open-addressing table, so
// that memory stays small on inputs of millions of questions. Two distinct
// ids collide with probability about n²/2⁶⁵ (1 in 10⁶ for 6 million ids).
type idSet struct {
	slots []uint64
	n     int
}

// add records id and reports whether it was there already.
func (s *idSet) add(id string) bool {
	h := fnv.New64a()
	h.Write([]byte(id))
	k := h.Sum64()
	if k == 0 {
		k = 1 // 0 marks an empty slot
	}
	if 2*(s.n+1) > len(s.slots) {
		s.grow()
	}
	if s.insert(k) {
		s.n++
		return false
	}
	return true
}

// insert puts k into the table and reports whether it was new.
func (s *idSet) insert(k uint64) bool {
	mask := uint64(len(s.slots) - 1)
	for i := k & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case 0:
			s.slots[i] = k
			return true
		case k:
			return false
		}
	}
}

func (s *idSet) grow() {
	old := s.slots
	n := max(1024, 2*len(old))
	s.slots = make([]uint64, n)
	for _, k := range old {
		if k != 0 {
			s.insert(k)
		}
	}
}
