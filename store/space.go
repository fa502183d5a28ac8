package store

import (
	"context"
	"fmt"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// BucketSpace is where the bytes of one top-level bucket of the file go (its nested
// buckets included), from bbolt's Bucket.Stats.
type BucketSpace struct {
	Name string
	Keys int
	// Pages are the bucket's branch and leaf pages (overflow pages included), Alloc
	// their bytes and Inuse the bytes they hold; Inline is the bytes of nested buckets
	// kept inside their parent's page.
	Pages        int
	Alloc, Inuse int
	Inline       int
	// Buckets counts the bucket and its nested buckets; InlineBuckets those of them
	// kept inline.
	Buckets, InlineBuckets int
}

// Space says where the file's bytes go: each top-level bucket's pages, largest first,
// the free pages and the file's size. It is what issue 23 measured the store by.
type Space struct {
	Buckets   []BucketSpace
	FreePages int   // pages free for reuse (bbolt's freelist)
	PageSize  int   // bytes a page
	FileSize  int64 // bytes of the file up to its last page in use (bbolt's Tx.Size)
}

// Space reads where the file's bytes go, in one read transaction.
func (d *DB) Space(ctx context.Context) (Space, error) {
	if err := ctx.Err(); err != nil {
		return Space{}, err
	}
	var s Space
	err := d.bolt.View(func(tx *bolt.Tx) error {
		s.FileSize = tx.Size()
		s.PageSize = tx.DB().Info().PageSize
		st := tx.DB().Stats()
		s.FreePages = st.FreePageN
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			bs := b.Stats()
			s.Buckets = append(s.Buckets, BucketSpace{
				Name:  string(name),
				Keys:  bs.KeyN,
				Pages: bs.BranchPageN + bs.BranchOverflowN + bs.LeafPageN + bs.LeafOverflowN,
				Alloc: bs.BranchAlloc + bs.LeafAlloc, Inuse: bs.BranchInuse + bs.LeafInuse,
				Inline: bs.InlineBucketInuse, Buckets: bs.BucketN, InlineBuckets: bs.InlineBucketN,
			})
			return nil
		})
	})
	if err != nil {
		return s, fmt.Errorf("read the store's space: %w", err)
	}
	slices.SortFunc(s.Buckets, func(a, b BucketSpace) int { return b.Alloc + b.Inline - a.Alloc - a.Inline })
	return s, nil
}

// String is the report as a table, a bucket a line.
func (s Space) String() string {
	out := fmt.Sprintf("%-16s %8s %7s %12s %12s %10s %8s\n", "bucket", "keys", "pages", "alloc", "inuse", "inline", "buckets")
	for _, b := range s.Buckets {
		out += fmt.Sprintf("%-16s %8d %7d %12d %12d %10d %4d/%-3d\n", b.Name, b.Keys, b.Pages, b.Alloc, b.Inuse, b.Inline, b.Buckets, b.InlineBuckets)
	}
	out += fmt.Sprintf("free pages %d (%d bytes), file %d bytes\n", s.FreePages, s.FreePages*s.PageSize, s.FileSize)
	return out
}
