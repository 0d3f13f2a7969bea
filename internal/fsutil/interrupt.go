package fsutil

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// An interrupted run must not leave its temporary files behind: a run
// stopped by Ctrl-C while writing a synthetic table of 1.1 GB left the
// hidden ".OUT.tmp-N" file of WriteFileAtomic in the output's directory.
// Every temporary file is registered while it exists, and the handler
// that HandleInterrupts installs removes them all before the process
// exits with the conventional status of the signal.

var temps struct {
	sync.Mutex
	files map[string]bool
	// deferred counts the callers (NotifyContext) that handle the
	// signals themselves, by cancelling a context.
	deferred int
}

// CreateTemp is os.CreateTemp of a file that is removed if the process
// is interrupted while it exists: untrack unregisters it, once the file
// is renamed into place or removed. The file is created and registered
// under the lock the handler takes, so no signal falls between the two.
func CreateTemp(dir, pattern string) (f *os.File, untrack func(), err error) {
	temps.Lock()
	defer temps.Unlock()
	if f, err = os.CreateTemp(dir, pattern); err != nil {
		return nil, nil, err
	}
	name := f.Name()
	if temps.files == nil {
		temps.files = map[string]bool{}
	}
	temps.files[name] = true
	return f, func() {
		temps.Lock()
		defer temps.Unlock()
		delete(temps.files, name)
	}, nil
}

// RemoveTemps removes every registered temporary file and unregisters
// it: the cleanup of an interrupted process, which the handler runs
// under the lock it then exits holding. It returns the names it removed.
func RemoveTemps() []string {
	temps.Lock()
	defer temps.Unlock()
	return removeTemps()
}

func removeTemps() []string {
	var removed []string
	for name := range temps.files {
		if os.Remove(name) == nil {
			removed = append(removed, name)
		}
		delete(temps.files, name)
	}
	return removed
}

var installOnce sync.Once

// interruptSignals are the signals a user or a scheduler stops a run with.
var interruptSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}

// HandleInterrupts installs, once per process, the handler that on
// SIGINT or SIGTERM removes the registered temporary files and exits with
// status 128 + the signal's number (130, 143), as a shell reports a
// process the signal stopped. While a NotifyContext is active the
// handler leaves the signals to it.
func HandleInterrupts() {
	installOnce.Do(func() {
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, interruptSignals...)
		go func() {
			for sig := range ch {
				temps.Lock()
				if temps.deferred > 0 {
					temps.Unlock()
					continue
				}
				// Exit holding the lock: no temporary file is created
				// or renamed into place after the cleanup.
				removeTemps()
				os.Exit(exitStatus(sig))
			}
		}()
	})
}

// exitStatus is the conventional exit status of a process stopped by sig.
func exitStatus(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 1
}

// NotifyContext is signal.NotifyContext for SIGINT and SIGTERM, for a
// command that stops cleanly on them (a server, a networked run that
// records its abort): while it is active the HandleInterrupts handler
// leaves the signals to it (the command stops, and an atomic write it
// abandons removes its temporary file as on any error). stop ends that.
func NotifyContext(parent context.Context) (ctx context.Context, stop context.CancelFunc) {
	temps.Lock()
	temps.deferred++
	temps.Unlock()
	ctx, cancel := signal.NotifyContext(parent, interruptSignals...)
	var once sync.Once
	return ctx, func() {
		cancel()
		once.Do(func() {
			temps.Lock()
			temps.deferred--
			temps.Unlock()
		})
	}
}
