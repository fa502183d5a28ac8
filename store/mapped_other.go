//go:build !linux

package store

// ReleaseMapped does nothing here: the resident set of a mapping is measured and
// released this way on Linux only (mapped_linux.go).
func (d *DB) ReleaseMapped() error { return nil }

// MappedResident is 0 here: the resident set is read on Linux only (mapped_linux.go).
func MappedResident() (int64, error) { return 0, nil }
