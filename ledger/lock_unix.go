//go:build unix

package ledger

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive advisory lock on f without waiting, so that
// two writers cannot interleave records.
func lockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}

func unlockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
}
