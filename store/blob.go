package store

import (
	"encoding/binary"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// chunkSize bounds one stored chunk of a large blob, keeping bbolt values
// (and the pages a transaction dirties at once) moderate.
const chunkSize = 16 << 20

// blobHeader is the first record of a chunked blob.
type blobHeader struct {
	Size   int64 `json:"size"`
	Chunks int   `json:"chunks"`
}

func chunkKey(name string, i int) []byte {
	return binary.BigEndian.AppendUint32([]byte(name+"\x00"), uint32(i))
}

// PutLargeBlob stores v under name in checksummed chunks, so values of any
// size fit bbolt and damage is pinned to one chunk.
func (t *WriteTx) PutLargeBlob(name string, v []byte) error {
	b := t.tx.Bucket(bucketBlobs)
	n := (len(v) + chunkSize - 1) / chunkSize
	h, _ := json.Marshal(blobHeader{Size: int64(len(v)), Chunks: n})
	if err := b.Put([]byte(name), seal(h)); err != nil {
		return fmt.Errorf("blob %s: %w", name, err)
	}
	for i := 0; i < n; i++ {
		if err := b.Put(chunkKey(name, i), seal(v[i*chunkSize:min((i+1)*chunkSize, len(v))])); err != nil {
			return fmt.Errorf("blob %s chunk %d: %w", name, i, err)
		}
	}
	return nil
}

// PutLargeBlobFrom stores a chunked blob of size bytes under name, as
// PutLargeBlob does, asking fill for the bytes of one chunk at a time
// (offset off, len(chunk) bytes) and writing each chunk in its own
// transaction: neither the whole value nor every chunk's sealed copy is
// ever held at once. Nothing is visible until the writer commits. A blob
// already stored under name must be deleted first.
func (w *Writer) PutLargeBlobFrom(name string, size int64, fill func(off int64, chunk []byte)) error {
	if size < 0 {
		return fmt.Errorf("blob %s: size %d", name, size)
	}
	n := int((size + chunkSize - 1) / chunkSize)
	h, _ := json.Marshal(blobHeader{Size: size, Chunks: n})
	err := w.Update(func(tx *WriteTx) error {
		return tx.tx.Bucket(bucketBlobs).Put([]byte(name), seal(h))
	})
	if err != nil {
		return fmt.Errorf("blob %s: %w", name, err)
	}
	buf := make([]byte, min(size, chunkSize))
	for i := 0; i < n; i++ {
		off := int64(i) * chunkSize
		chunk := buf[:min(size-off, chunkSize)]
		fill(off, chunk)
		err := w.Update(func(tx *WriteTx) error {
			return tx.tx.Bucket(bucketBlobs).Put(chunkKey(name, i), seal(chunk))
		})
		if err != nil {
			return fmt.Errorf("blob %s chunk %d: %w", name, i, err)
		}
	}
	return nil
}

// LargeBlob returns a copy of the chunked blob stored under name.
func (r *Reader) LargeBlob(name string) ([]byte, error) {
	var out []byte
	err := r.view(func(tx *bolt.Tx) error {
		var err error
		out, err = largeBlob(tx, name)
		return err
	})
	return out, err
}

// LargeBlobInPlace is LargeBlob without the copy for a blob stored in one
// chunk (up to 16 MiB: the dense model, say): its checksummed bytes where
// they lie in the file's memory map, valid until the Reader is closed and
// never to be modified. A reader of them must expect a fault should the
// file be cut short under the map (Reader.Guard turns one into
// ErrCorrupt). A blob of several chunks is copied, as LargeBlob does.
func (r *Reader) LargeBlobInPlace(name string) ([]byte, error) {
	tx, err := r.pinned()
	if err != nil {
		return nil, err
	}
	var out []byte
	err = r.guard(func() error {
		b := tx.Bucket(bucketBlobs)
		hv := b.Get([]byte(name))
		if hv == nil {
			return fmt.Errorf("blob %s: %w", name, ErrNotFound)
		}
		p, err := unseal(hv, "blob "+name)
		if err != nil {
			return err
		}
		var h blobHeader
		if err := json.Unmarshal(p, &h); err != nil || h.Chunks != 1 {
			out, err = largeBlob(tx, name) // damage is reported there
			return err
		}
		v := b.Get(chunkKey(name, 0))
		if v == nil {
			return fmt.Errorf("blob %s chunk 0: missing: %w", name, ErrCorrupt)
		}
		if out, err = unseal(v, fmt.Sprintf("blob %s chunk 0", name)); err != nil {
			return err
		}
		if int64(len(out)) != h.Size {
			return fmt.Errorf("blob %s: %d bytes, header says %d: %w", name, len(out), h.Size, ErrCorrupt)
		}
		return nil
	})
	return out, err
}

// Guard runs fn, turning a fault on a mapped page (a file cut short under
// the memory map, read in place) into ErrCorrupt.
func (r *Reader) Guard(fn func() error) error { return r.guard(fn) }

func largeBlob(tx *bolt.Tx, name string) ([]byte, error) {
	b := tx.Bucket(bucketBlobs)
	hv := b.Get([]byte(name))
	if hv == nil {
		return nil, fmt.Errorf("blob %s: %w", name, ErrNotFound)
	}
	p, err := unseal(hv, "blob "+name)
	if err != nil {
		return nil, err
	}
	var h blobHeader
	if err := json.Unmarshal(p, &h); err != nil || h.Size < 0 || h.Chunks < 0 || int64(h.Chunks) != (h.Size+chunkSize-1)/chunkSize {
		return nil, fmt.Errorf("blob %s: bad header: %w", name, ErrCorrupt)
	}
	out := make([]byte, 0, h.Size)
	for i := 0; i < h.Chunks; i++ {
		what := fmt.Sprintf("blob %s chunk %d", name, i)
		v := b.Get(chunkKey(name, i))
		if v == nil {
			return nil, fmt.Errorf("%s: missing: %w", what, ErrCorrupt)
		}
		p, err := unseal(v, what)
		if err != nil {
			return nil, err
		}
		out = append(out, p...)
	}
	if int64(len(out)) != h.Size {
		return nil, fmt.Errorf("blob %s: %d bytes, header says %d: %w", name, len(out), h.Size, ErrCorrupt)
	}
	return out, nil
}

// HasBlob reports whether a blob called name exists.
func (r *Reader) HasBlob(name string) bool {
	ok := false
	r.view(func(tx *bolt.Tx) error {
		ok = tx.Bucket(bucketBlobs).Get([]byte(name)) != nil
		return nil
	})
	return ok
}
