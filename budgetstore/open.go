package budgetstore

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// DamagedError is a ledger file whose pages are damaged (a torn write, a
// crashed disk, a truncated copy): it cannot be read, and it must not be
// replaced by a new ledger, which would forget the budget already spent.
type DamagedError struct {
	Path string
	// Err is what bbolt or the consistency check found.
	Err error
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("budgetstore: budget ledger %s is damaged (%v); it records every privacy budget spent on the dataset, "+
		"so dppub will not use it or start a new one in its place: restore it from a backup (keep the damaged file for inspection; "+
		"deleting it would reset the spent budget to zero)", e.Path, e.Err)
}

func (e *DamagedError) Unwrap() error { return e.Err }

// openDB is the one way a ledger file is opened. An existing file is
// first opened read-only (which takes the lock, so that no other process
// writes it meanwhile) and checked whole, so that a damaged file is never
// written to: its bytes by checkPages, then by bbolt's own consistency
// check. Only then is it opened for writing. A missing file is created.
// Corruption, which bbolt reports by panicking (or by a memory fault on
// a page outside the file), comes back as a *DamagedError naming the
// file.
func openDB(path string, timeout time.Duration) (*bolt.DB, error) {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return openBolt(path, &bolt.Options{Timeout: timeout})
	case err != nil:
		return nil, fmt.Errorf("budgetstore: %w", err)
	case !info.Mode().IsRegular():
		return nil, fmt.Errorf("budgetstore: budget ledger %s is not a regular file", path)
	case info.Size() == 0:
		// bbolt would silently initialise an empty file as a new ledger.
		return nil, &DamagedError{path, errors.New("the file is empty; if this member never served a session, remove it and start again")}
	}
	ro, err := openBolt(path, &bolt.Options{Timeout: timeout, ReadOnly: true})
	if err != nil {
		return nil, err
	}
	err = checkDB(ro)
	if cerr := closeDB(ro, err != nil); err == nil && cerr != nil {
		err = fmt.Errorf("budgetstore: close %s after checking it: %w", path, cerr)
	}
	if err != nil {
		return nil, err
	}
	return openBolt(path, &bolt.Options{Timeout: timeout})
}

// openBolt opens the file with bbolt, turning its errors about the
// file's contents and its panics into a *DamagedError. After a panic
// the half-open file is closed here, which releases its lock.
func openBolt(path string, o *bolt.Options) (db *bolt.DB, err error) {
	var file *os.File
	o.OpenFile = func(name string, flag int, perm os.FileMode) (*os.File, error) {
		f, err := os.OpenFile(name, flag, perm)
		file = f
		return f, err
	}
	err = guard(path, func() error {
		db, err = bolt.Open(path, 0o600, o)
		return err
	})
	var damaged *DamagedError
	switch {
	case err == nil:
		return db, nil
	case errors.As(err, &damaged):
		if file != nil {
			file.Close()
		}
		return nil, err
	case errors.Is(err, bolt.ErrTimeout):
		return nil, fmt.Errorf("budgetstore: budget ledger %s is in use by another process (a member's server?): a ledger is used by one process at a time", path)
	case errors.Is(err, bolt.ErrInvalid), errors.Is(err, bolt.ErrChecksum), errors.Is(err, bolt.ErrVersionMismatch),
		strings.HasPrefix(err.Error(), "file size too small"): // bbolt's words for a file shorter than its meta pages
		return nil, &DamagedError{path, err}
	}
	return nil, fmt.Errorf("budgetstore: open %s: %w", path, err)
}

// checkDB checks the file of db: its bytes with checkPages (which makes
// bbolt's reads safe), then with bbolt's consistency check (every page
// reachable or free, none twice, keys in order). bbolt's check panics on
// a torn meta page, which bbolt itself reads past (and rewrites at the
// next commit): then checkPages alone. On a writable db the check holds
// the write lock in a transaction it rolls back, so that no commit
// rewrites pages while the file is read.
func checkDB(db *bolt.DB) error {
	check := func(tx *bolt.Tx) error {
		b, err := os.ReadFile(db.Path())
		if err != nil {
			return fmt.Errorf("budgetstore: %w", err)
		}
		torn, err := checkPages(b)
		switch {
		case err != nil:
			return &DamagedError{db.Path(), err}
		case torn:
			return nil
		}
		var found error
		for err := range tx.Check() { // drain: the checker stops only at the end
			if found == nil {
				found = err
			}
		}
		if found != nil {
			return &DamagedError{db.Path(), found}
		}
		return nil
	}
	return guard(db.Path(), func() error {
		if db.IsReadOnly() {
			return db.View(check)
		}
		err := db.Update(func(tx *bolt.Tx) error {
			if err := check(tx); err != nil {
				return err
			}
			return errRollback
		})
		if err == errRollback {
			return nil
		}
		return err
	})
}

// errRollback ends a write transaction that must not commit.
var errRollback = errors.New("budgetstore: roll back")

// guard runs fn and returns, instead of a panic, a *DamagedError naming
// path: bbolt panics on pages it cannot read, and a page number beyond
// the mapped file faults, which SetPanicOnFault turns into a panic
// (in this goroutine only).
func guard(path string, fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = &DamagedError{path, fmt.Errorf("bbolt: %v", r)}
		}
	}()
	return fn()
}

// closeDB closes db. After a panic inside a transaction bbolt may still
// hold its own locks, and Close would wait for them for ever: a damaged
// database's close is given a second, then left to the process's exit.
func closeDB(db *bolt.DB, damaged bool) error {
	if !damaged {
		return db.Close()
	}
	done := make(chan error, 1)
	go func() {
		done <- guard(db.Path(), db.Close)
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Second):
		return nil
	}
}
