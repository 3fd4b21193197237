package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// CheckFile checks the index file at path like [Reader.Check], but looks
// at its pages ([CheckPages]) before bbolt opens it at all; damaged pages
// are reported as the file's one problem. The error is for a file that is
// not an index.
func CheckFile(path string) (CheckReport, error) {
	if hasBoltMagic(path) {
		if err := CheckPages(path); err != nil {
			return CheckReport{Problems: []error{fmt.Errorf("index %s: %w", path, err)}}, nil
		}
	}
	r, err := Open(path)
	if err != nil {
		return CheckReport{}, err
	}
	defer r.Close()
	return r.Check(), nil
}

// CheckReport is what [Reader.Check] read.
type CheckReport struct {
	// Records is the number of checksummed records read: contexts,
	// sentences, postings lists, document lengths, blob headers, chunks
	// and plain blobs.
	Records int `json:"records"`
	// Bytes is the payload bytes those records hold.
	Bytes int64 `json:"bytes"`
	// Problems lists what is damaged, each wrapping [ErrCorrupt] and
	// naming the part (at most MaxProblems).
	Problems []error `json:"-"`
}

// MaxProblems bounds the problems one Check reports.
const MaxProblems = 100

// Check reads every record of the index and verifies what the store can:
// each record's checksum, every BM25 field's term-dictionary digest, the
// ids of contexts and sentences (0, 1, 2… as many as the meta says) and
// every chunked blob's header and chunks. It reads the whole file, so it
// finds damage in parts no ranker has read yet: run it on an index copied
// to another machine before trusting it. The contents of postings, vectors
// and graphs are the upper layers' to check (rank.Verify does both).
func (r *Reader) Check() CheckReport {
	var rep CheckReport
	if err := CheckPages(r.path); err != nil {
		// Reading damaged pages through bbolt is not safe (see CheckPages).
		rep.Problems = append(rep.Problems, fmt.Errorf("index %s: %w", r.path, err))
		return rep
	}
	problem := func(err error) {
		if len(rep.Problems) < MaxProblems {
			rep.Problems = append(rep.Problems, err)
		}
	}
	record := func(what string, v []byte) []byte {
		p, err := unsealed(v)
		if err != nil {
			problem(fmt.Errorf("%s: %w", what, err))
			return nil
		}
		rep.Records++
		rep.Bytes += int64(len(p))
		return p
	}
	wantCtx, wantSent, fields := r.meta.Contexts, r.meta.Sentences, r.meta.Fields
	if r.meta.Engine != nil {
		// The records and postings are kept in the engine.
		wantCtx, wantSent, fields = 0, 0, nil
	}
	err := r.view(func(tx *bolt.Tx) error {
		for _, part := range []struct {
			bucket []byte
			what   string
			want   int
		}{{bucketContexts, "context", wantCtx}, {bucketSentences, "sentence", wantSent}} {
			b := tx.Bucket(part.bucket)
			if b == nil {
				problem(fmt.Errorf("%ss missing: %w", part.what, ErrCorrupt))
				continue
			}
			next := uint32(0)
			b.ForEach(func(k, v []byte) error {
				if len(k) != 4 {
					problem(fmt.Errorf("%s key %x: %w", part.what, k, ErrCorrupt))
					return nil
				}
				id := binary.BigEndian.Uint32(k)
				if id != next {
					problem(fmt.Errorf("%s %d where %d was expected: %w", part.what, id, next, ErrCorrupt))
				}
				next = id + 1
				record(fmt.Sprintf("%s %d", part.what, id), v)
				return nil
			})
			if int(next) != part.want {
				problem(fmt.Errorf("%d %ss stored, meta says %d: %w", next, part.what, part.want, ErrCorrupt))
			}
		}
		for _, f := range fields {
			fb := tx.Bucket([]byte(fieldPrefix + f.Name))
			if fb == nil {
				problem(fmt.Errorf("field %s missing: %w", f.Name, ErrCorrupt))
				continue
			}
			if v := fb.Get(keyDocLens); v == nil {
				problem(fmt.Errorf("field %s document lengths missing: %w", f.Name, ErrCorrupt))
			} else {
				record("field "+f.Name+" document lengths", v)
			}
			pb, err := postingsBucket(tx, f.Name, ErrCorrupt)
			if err != nil {
				problem(err)
				continue
			}
			// The term filter, when it is the dictionary's (written for
			// this digest), must hold every term: a lazy reader trusts
			// it to tell an absent term from a damaged key.
			var filter *termFilter
			if v := fb.Get(keyTermFilter); v != nil {
				var err error
				if filter, err = storedFilter(fb, f); err != nil {
					problem(err)
				} else {
					rep.Records++
					rep.Bytes += int64(len(v) - 4)
				}
			}
			missed := 0
			pb.ForEach(func(k, v []byte) error {
				record(fmt.Sprintf("field %s postings of %q", f.Name, k), v)
				if filter != nil && !filter.has(k) {
					if missed == 0 {
						problem(fmt.Errorf("field %s term filter lacks the term %q: %w", f.Name, k, ErrCorrupt))
					}
					missed++
				}
				return nil
			})
		}
		if b := tx.Bucket(bucketBlobs); b == nil {
			problem(fmt.Errorf("blobs missing: %w", ErrCorrupt))
		} else {
			var large []string
			b.ForEach(func(k, v []byte) error {
				p := record("blob "+blobPart(k), v)
				if p != nil && !bytes.Contains(k, []byte{0}) && isBlobHeader(p) {
					large = append(large, string(k))
				}
				return nil
			})
			for _, name := range large {
				if err := checkChunks(b, name); err != nil {
					problem(err)
				}
			}
		}
		if top := tx.Bucket(bucketRows); top != nil {
			top.ForEach(func(k, _ []byte) error {
				rs, err := rowsOf(top, string(k))
				if err == nil {
					err = rs.Check()
				}
				if err != nil {
					problem(err)
					return nil
				}
				rep.Records += rs.h.Chunks
				rep.Bytes += int64(rs.h.Rows) * int64(rs.h.RowBytes)
				return nil
			})
		}
		return nil
	})
	if err != nil {
		problem(err)
	}
	for _, f := range r.meta.Fields {
		if err := r.VerifyField(f.Name); err != nil && !errors.Is(err, ErrNotFound) {
			problem(err)
		}
	}
	return rep
}

// checkChunks checks that the chunked blob name has every chunk its header
// promises and that they add up to its size (their checksums were read
// with every other record).
func checkChunks(b *bolt.Bucket, name string) error {
	p, err := unseal(b.Get([]byte(name)), "blob "+name)
	if err != nil {
		return nil // reported with the records
	}
	var h blobHeader
	if err := json.Unmarshal(p, &h); err != nil || h.Size < 0 || h.Chunks < 0 || int64(h.Chunks) != (h.Size+chunkSize-1)/chunkSize {
		return fmt.Errorf("blob %s: bad header: %w", name, ErrCorrupt)
	}
	var size int64
	for i := 0; i < h.Chunks; i++ {
		v := b.Get(chunkKey(name, i))
		if v == nil {
			return fmt.Errorf("blob %s chunk %d: missing: %w", name, i, ErrCorrupt)
		}
		size += int64(max(len(v)-4, 0))
	}
	if size != h.Size {
		return fmt.Errorf("blob %s: %d bytes, header says %d: %w", name, size, h.Size, ErrCorrupt)
	}
	return nil
}

// BlobNames returns the names of the blobs stored (chunked or not), in
// byte order.
func (r *Reader) BlobNames() ([]string, error) {
	var out []string
	err := r.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketBlobs).ForEach(func(k, _ []byte) error {
			if !bytes.Contains(k, []byte{0}) {
				out = append(out, string(k))
			}
			return nil
		})
	})
	return out, err
}

// ScanPostings calls fn for every term of field name whose record is
// intact, in byte order, skipping damaged ones (which Check reports). The
// slice passed to fn is only valid during the call.
func (r *Reader) ScanPostings(name string, fn func(term string, encoded []byte) error) error {
	return r.view(func(tx *bolt.Tx) error {
		pb, err := postingsBucket(tx, name, ErrNotFound)
		if err != nil {
			return err
		}
		return pb.ForEach(func(k, v []byte) error {
			p, err := unsealed(v)
			if err != nil {
				return nil
			}
			return fn(string(k), p)
		})
	})
}

// isBlobHeader reports whether p is a chunked blob's header: a JSON
// object with exactly its two keys (plain blobs are binary or JSON of
// other shapes).
func isBlobHeader(p []byte) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(p, &m) != nil || len(m) != 2 {
		return false
	}
	_, size := m["size"]
	_, chunks := m["chunks"]
	return size && chunks
}

// blobPart names a blob record: a name, or a name and chunk number.
func blobPart(k []byte) string {
	if i := bytes.IndexByte(k, 0); i >= 0 && len(k) == i+5 {
		return fmt.Sprintf("%s chunk %d", k[:i], binary.BigEndian.Uint32(k[i+1:]))
	}
	return string(k)
}
