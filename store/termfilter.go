package store

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"sync"
	"sync/atomic"

	bolt "go.etcd.io/bbolt"
)

// A field's term filter is a Bloom filter of its terms, stored beside its
// postings under the key "termfilter" and written by Writer.Commit for
// every field whose FieldMeta has a term-dictionary digest. It lets a
// reader that does not verify the whole dictionary at open
// (OpenOptions.LazyTerms: reqa ask, one question a process) still tell a
// term the field lacks from a term whose key was damaged: a lookup that
// misses while the filter says the term is there verifies the field
// (VerifyField), once. The filter records the digest and term count it
// was built from and is used only while they are the FieldMeta's, so a
// writer that changes the dictionary without rewriting it (one from
// before filters) leaves a reader to verify the field at open instead.
//
// Layout (sealed like every record): the term count and the digest
// (uint32 big-endian each), the number of probes, log2 of the number of
// bits, two zero bytes, then the bits. Probe i of a term sets bit
// (h1 + i·h2) mod 2^log2 of the term's FNV-1a 64-bit hash h (h1 its low
// half, h2 its high half made odd).
const (
	filterBitsPerTerm = 16
	filterProbes      = 11
	filterHeader      = 12
	filterMinLog2     = 9
	filterMaxLog2     = 34
)

// termFilter is a decoded term filter.
type termFilter struct {
	digest uint32
	terms  int
	probes int
	mask   uint64
	bits   []byte
}

// termHashes returns the two halves of term's FNV-1a 64-bit hash, the
// second made odd.
func termHashes(term []byte) (h1, h2 uint64) {
	const offset, prime = 14695981039346656037, 1099511628211
	s := uint64(offset)
	for _, c := range term {
		s = (s ^ uint64(c)) * prime
	}
	return s & 0xffffffff, s>>32 | 1
}

// has reports whether term may be in the filter's field (false: it is not).
func (f *termFilter) has(term []byte) bool {
	h1, h2 := termHashes(term)
	for i := 0; i < f.probes; i++ {
		b := (h1 + uint64(i)*h2) & f.mask
		if f.bits[b>>3]&(1<<(b&7)) == 0 {
			return false
		}
	}
	return true
}

// buildTermFilter returns the encoded filter of the keys of the postings
// bucket pb, recording digest and terms.
func buildTermFilter(pb *bolt.Bucket, digest uint32, terms int) []byte {
	log2 := bits.Len64(uint64(max(terms, 1))*filterBitsPerTerm - 1)
	log2 = min(max(log2, filterMinLog2), filterMaxLog2)
	out := make([]byte, filterHeader+(1<<log2)/8)
	binary.BigEndian.PutUint32(out[0:], uint32(terms))
	binary.BigEndian.PutUint32(out[4:], digest)
	out[8], out[9] = filterProbes, byte(log2)
	f := termFilter{probes: filterProbes, mask: 1<<log2 - 1, bits: out[filterHeader:]}
	pb.ForEach(func(k, _ []byte) error {
		h1, h2 := termHashes(k)
		for i := 0; i < f.probes; i++ {
			b := (h1 + uint64(i)*h2) & f.mask
			f.bits[b>>3] |= 1 << (b & 7)
		}
		return nil
	})
	return out
}

// decodeTermFilter reads an encoded filter (its seal already checked).
func decodeTermFilter(p []byte, what string) (*termFilter, error) {
	if len(p) < filterHeader {
		return nil, fmt.Errorf("%s: %d bytes: %w", what, len(p), ErrCorrupt)
	}
	log2 := int(p[9])
	if p[8] == 0 || p[8] > 64 || log2 < filterMinLog2 || log2 > filterMaxLog2 || p[10] != 0 || p[11] != 0 ||
		len(p)-filterHeader != (1<<log2)/8 {
		return nil, fmt.Errorf("%s: bad header: %w", what, ErrCorrupt)
	}
	return &termFilter{
		terms:  int(binary.BigEndian.Uint32(p[0:])),
		digest: binary.BigEndian.Uint32(p[4:]),
		probes: int(p[8]),
		mask:   1<<log2 - 1,
		bits:   append([]byte(nil), p[filterHeader:]...),
	}, nil
}

// storedFilter returns field fm's stored term filter from its bucket fb:
// nil when it has none or one built for another dictionary, an error
// wrapping ErrCorrupt when it is damaged.
func storedFilter(fb *bolt.Bucket, fm FieldMeta) (*termFilter, error) {
	v := fb.Get(keyTermFilter)
	if v == nil {
		return nil, nil
	}
	what := "field " + fm.Name + " term filter"
	p, err := unseal(v, what)
	if err != nil {
		return nil, err
	}
	f, err := decodeTermFilter(p, what)
	if err != nil || f.digest != fm.Digest || f.terms != fm.DigestTerms {
		return nil, err
	}
	return f, nil
}

// putTermFilters writes, in the committing transaction, the term filter of
// every field of m with a digest whose stored filter is missing or was
// built for another dictionary.
func putTermFilters(tx *bolt.Tx, m Meta) error {
	for _, fm := range m.Fields {
		if fm.DigestTerms == 0 {
			continue
		}
		fb := tx.Bucket([]byte(fieldPrefix + fm.Name))
		if fb == nil {
			continue // Check reports the missing field
		}
		if f, err := storedFilter(fb, fm); err == nil && f != nil {
			continue // current; a damaged one is written anew
		}
		pb := fb.Bucket(bucketPostings)
		if pb == nil {
			continue
		}
		if err := fb.Put(keyTermFilter, seal(buildTermFilter(pb, fm.Digest, fm.DigestTerms))); err != nil {
			return fmt.Errorf("field %s term filter: %w", fm.Name, err)
		}
	}
	return nil
}

// fieldCheck is what a Reader knows of one field's term dictionary: its
// filter (loaded once) and whether VerifyField ran (once).
type fieldCheck struct {
	load    sync.Once
	filter  *termFilter // nil: none, or not current
	loadErr error
	verify  sync.Once
	verErr  error
	checked atomic.Bool // VerifyField ran
}

func (r *Reader) fieldCheck(name string) *fieldCheck {
	v, _ := r.checks.LoadOrStore(name, &fieldCheck{})
	return v.(*fieldCheck)
}

// termFilter returns field name's current filter (nil when it has none,
// or one built for another dictionary).
func (r *Reader) termFilter(name string) (*termFilter, error) {
	fc := r.fieldCheck(name)
	fc.load.Do(func() {
		fm, ok := r.meta.Field(name)
		if !ok || fm.DigestTerms == 0 {
			return
		}
		fc.loadErr = r.view(func(tx *bolt.Tx) error {
			fb := tx.Bucket([]byte(fieldPrefix + name))
			if fb == nil {
				return nil
			}
			var err error
			fc.filter, err = storedFilter(fb, fm)
			return err
		})
	})
	return fc.filter, fc.loadErr
}

// verifyOnce runs VerifyField for name once and returns its result.
func (r *Reader) verifyOnce(name string) error {
	fc := r.fieldCheck(name)
	fc.verify.Do(func() {
		fc.verErr = r.VerifyField(name)
		fc.checked.Store(true)
	})
	return fc.verErr
}

// verified reports whether VerifyField already ran for name.
func (r *Reader) verified(name string) bool { return r.fieldCheck(name).checked.Load() }

// CheckField readies field name's term dictionary for lookups. By default,
// and for a field without a current term filter, it verifies the whole
// dictionary now (VerifyField: every term, a pass proportional to the
// vocabulary). With OpenOptions.LazyTerms and a current filter it reads
// only the filter: each lookup that misses is then checked against it
// (Postings), so a damaged key is still reported, as ErrCorrupt, by the
// question that needs it.
func (r *Reader) CheckField(name string) error {
	if r.lazyTerms {
		f, err := r.termFilter(name)
		if err != nil {
			return err
		}
		if f != nil {
			return nil
		}
	}
	return r.verifyOnce(name)
}

// checkMissing is Postings' check of a term field name lacks: when the
// field's filter says it should be there, the whole dictionary is verified
// (a damaged key is ErrCorrupt; else the filter erred, as it may for
// about one absent term in 2,000).
func (r *Reader) checkMissing(name string, term []byte) error {
	if r.verified(name) {
		return r.verifyOnce(name)
	}
	f, err := r.termFilter(name)
	if err != nil || f == nil || !f.has(term) {
		return err
	}
	return r.verifyOnce(name)
}

// TermFiltersCurrent reports whether every field of m with a digest has
// a term filter built for it (an index written before filters has none:
// committing it writes them).
func (t *WriteTx) TermFiltersCurrent(m Meta) bool {
	for _, fm := range m.Fields {
		if fm.DigestTerms == 0 {
			continue
		}
		fb := t.tx.Bucket([]byte(fieldPrefix + fm.Name))
		if fb == nil {
			return false
		}
		if f, err := storedFilter(fb, fm); err != nil || f == nil {
			return false
		}
	}
	return true
}
