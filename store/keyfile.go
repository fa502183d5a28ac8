package store

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// keyFileBytes is the length of the key a key file holds.
const keyFileBytes = 32

// LoadKey returns the secret key kept in the file at path (by convention the store's
// file name with ".key" added), creating the file with a random key, mode 0600, the
// first time. The key is kept outside the store so that a copy of the store alone
// (a backup, a stolen file) does not give what it keys, such as the password
// verifiers. Several processes starting at once agree on one key: the file appears
// whole or not at all (it is written beside and linked into place).
func LoadKey(path string) ([]byte, error) {
	key, err := readKey(path)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return key, err
	}
	fresh := make([]byte, keyFileBytes)
	if _, err := rand.Read(fresh); err != nil {
		return nil, fmt.Errorf("create key file %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".new*")
	if err != nil {
		return nil, fmt.Errorf("create key file %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.WriteString(hex.EncodeToString(fresh) + "\n")
	if err := errors.Join(werr, tmp.Sync(), tmp.Close()); err != nil {
		return nil, fmt.Errorf("create key file %s: %w", path, err)
	}
	// CreateTemp made it 0600. Link fails if another process was first: its key wins.
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("create key file %s: %w", path, err)
	}
	return readKey(path)
}

// readKey reads a key file, refusing one that others than its owner may read.
func readKey(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read key file: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read key file %s: %w", path, err)
	}
	if info.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("key file %s: mode %v lets others read it; chmod 600 it", path, info.Mode().Perm())
	}
	buf := make([]byte, 2*keyFileBytes+2)
	n, _ := f.Read(buf)
	key, err := hex.DecodeString(strings.TrimSpace(string(buf[:n])))
	if err != nil || len(key) != keyFileBytes {
		return nil, fmt.Errorf("key file %s: expected %d hex digits on one line; move it away to have a new one made (players then need a first mail checked the slow way)", path, 2*keyFileBytes)
	}
	return key, nil
}
