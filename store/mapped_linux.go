package store

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	bolt "go.etcd.io/bbolt"
	"golang.org/x/sys/unix"
)

// ReleaseMapped drops the store file's pages from this process's mapping of it; they
// stay in the kernel's page cache, and the next read maps them again (a minor fault).
//
// bbolt reads the file through a shared read-only mapping, and every page a read
// touches stays in the process's resident set until the mapping is replaced, which
// bbolt does only when the file outgrows it: on this kernel a read maps the whole
// large folio around the page (2 MB of a freshly written file) whatever madvise
// (bbolt already asks MADV_RANDOM) says. A daemon whose mails touch games all over
// the file thus came to hold most of the file (issue 23: 183 of its 262 MB at the
// peak of 10,000 games). MADV_DONTNEED on a shared file mapping only unmaps: no data
// is lost and nothing is written.
//
// It runs inside a read transaction, which holds bbolt's mapping lock: the mapping
// cannot be replaced (and its address range reused) while the advice is given.
func (d *DB) ReleaseMapped() error {
	return d.bolt.View(func(tx *bolt.Tx) error {
		n := tx.Size() // bytes of the file in use: the mapping covers at least these
		if n <= 0 {
			return nil
		}
		// The mapping is bbolt's, not Go memory: its address goes to the kernel as a
		// number, as bbolt's own Info gives it.
		_, _, errno := unix.Syscall(unix.SYS_MADVISE, tx.DB().Info().Data, uintptr(n), unix.MADV_DONTNEED)
		if errno != 0 {
			return fmt.Errorf("release the store's mapped pages (%d bytes): %w", n, errno)
		}
		return nil
	})
}

// MappedResident is how much of this process's resident set maps files (RssFile and
// RssShmem of /proc/self/status): the store's mapping, the program's own text, and any
// other mapped file. It is what ReleaseMapped brings down.
func MappedResident() (int64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, fmt.Errorf("read the resident set: %w", err)
	}
	var n int64
	for l := range strings.SplitSeq(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 && (f[0] == "RssFile:" || f[0] == "RssShmem:") {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("read the resident set: %s: %w", l, err)
			}
			n += kb << 10
		}
	}
	return n, nil
}
