//go:build !unix

package ledger

import "os"

// lockFile is a no-op where flock(2) is unavailable: callers must not open
// one ledger directory for writing from two processes.
func lockFile(f *os.File) error { return nil }

func unlockFile(f *os.File) error { return nil }
