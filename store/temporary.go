package store

import (
	"errors"

	bolterrors "go.etcd.io/bbolt/errors"
)

// Temporary reports whether err is one of the store's own failures that may pass: the
// file locked by another process (a lock timeout), the store closed under a shutdown,
// or its size limit reached. The desk does not retry on other errors of the store.
func Temporary(err error) bool {
	return errors.Is(err, bolterrors.ErrTimeout) || errors.Is(err, bolterrors.ErrDatabaseNotOpen) ||
		errors.Is(err, bolterrors.ErrMaxSizeReached)
}
