package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// CompactReport says what a compaction did.
type CompactReport struct {
	Before, After int64 // the file's size in bytes
}

// compactTxSize is how many bytes bbolt's Compact copies in one transaction of the new
// file: large enough that a store of a few hundred MB takes few commits, small enough
// that one transaction's dirty pages stay a few MB.
const compactTxSize = 4 << 20

// Compact rewrites the bbolt file at path with bbolt's Compact into a new file beside
// it and swaps it in: the pages freed by archived games and rewritten mails leave the
// file, so that its size follows the live games. The file must not be open (serve
// compacts at start-up, before it opens the store); the old file stays locked until the
// new one is in place, and a failure before the swap leaves it untouched.
func Compact(path string) (CompactReport, error) {
	var rep CompactReport
	src, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 5 * time.Second})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return rep, fmt.Errorf("compact store %s: it is locked by another process (stop 'adjutant serve', or let it compact at start-up): %w", path, err)
	}
	if err != nil {
		return rep, fmt.Errorf("compact store %s: %w", path, err)
	}
	defer src.Close()
	if rep.Before, err = fileSize(path); err != nil {
		return rep, fmt.Errorf("compact store %s: %w", path, err)
	}
	tmp := path + ".compact"
	if err := os.Remove(tmp); err != nil && !errors.Is(err, os.ErrNotExist) {
		return rep, fmt.Errorf("compact store %s: remove the leftover %s: %w", path, tmp, err)
	}
	dst, err := bolt.Open(tmp, 0o600, nil)
	if err != nil {
		return rep, fmt.Errorf("compact store %s: %w", path, err)
	}
	dst.AllocSize = allocSize // as Open: the compacted file as long as its pages
	err = bolt.Compact(dst, src, compactTxSize)
	if err == nil {
		err = dst.Sync()
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return rep, fmt.Errorf("compact store %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return rep, fmt.Errorf("compact store %s: swap in the compacted file: %w", path, err)
	}
	if err := syncDir(filepath.Dir(path)); err != nil {
		return rep, fmt.Errorf("compact store %s: %w", path, err)
	}
	if rep.After, err = fileSize(path); err != nil {
		return rep, fmt.Errorf("compact store %s: %w", path, err)
	}
	return rep, nil
}

func fileSize(path string) (int64, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
