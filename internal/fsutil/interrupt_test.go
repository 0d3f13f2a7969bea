package fsutil

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// The child process of TestInterruptRemovesTemporaryFiles: with
// FSUTIL_INTERRUPT_CHILD set to a directory, it starts an atomic write of
// out.csv there, says "writing" on stdout and blocks until a signal
// stops it. With FSUTIL_INTERRUPT_DEFER set, a NotifyContext handles the
// signals: the write stops when the context is cancelled.
func TestMain(m *testing.M) {
	if dir := os.Getenv("FSUTIL_INTERRUPT_CHILD"); dir != "" {
		os.Exit(interruptChild(dir, os.Getenv("FSUTIL_INTERRUPT_DEFER") != ""))
	}
	os.Exit(m.Run())
}

func interruptChild(dir string, deferred bool) int {
	HandleInterrupts()
	ctx := context.Background()
	if deferred {
		var stop context.CancelFunc
		ctx, stop = NotifyContext(ctx)
		defer stop()
	}
	err := WriteFileAtomic(filepath.Join(dir, "out.csv"), 0o644, func(w io.Writer) error {
		if _, err := io.WriteString(w, "a,b\n1,2\n"); err != nil {
			return err
		}
		fmt.Println("writing")
		<-ctx.Done() // without NotifyContext: until the handler exits
		return ctx.Err()
	})
	if errors.Is(err, context.Canceled) {
		return 3 // the command's own clean stop
	}
	return 4
}

// An interrupted run removes its temporary files and exits with the
// signal's conventional status: before, a run stopped by Ctrl-C left the
// hidden .OUT.tmp-N file of up to 1.1 GB. Under a NotifyContext the
// signal is the command's to handle, and its failing write removes the
// file as any failing write does.
func TestInterruptRemovesTemporaryFiles(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("signals are sent to processes on Unix only")
	}
	cases := []struct {
		name     string
		sig      syscall.Signal
		deferred bool
		status   int
	}{
		{"SIGINT", syscall.SIGINT, false, 130},
		{"SIGTERM", syscall.SIGTERM, false, 143},
		{"SIGINT under NotifyContext", syscall.SIGINT, true, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "FSUTIL_INTERRUPT_CHILD="+dir)
			if c.deferred {
				cmd.Env = append(cmd.Env, "FSUTIL_INTERRUPT_DEFER=1")
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(stdout).ReadString('\n')
			if err != nil || line != "writing\n" {
				_ = cmd.Process.Kill()
				t.Fatalf("child said %q, %v", line, err)
			}
			if n := len(entries(t, dir)); n != 1 {
				t.Fatalf("%d files while writing, want the temporary one", n)
			}
			if err := cmd.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatal("the child did not stop within 30 s")
			}
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != c.status {
				t.Fatalf("child ended with %v, want status %d", err, c.status)
			}
			if names := entries(t, dir); len(names) != 0 {
				t.Fatalf("left behind: %v", names)
			}
		})
	}
}

// The cleanup hook removes the registered files and only those: a file
// renamed into place (untracked) stays.
func TestRemoveTemps(t *testing.T) {
	dir := t.TempDir()
	a, untrackA, err := CreateTemp(dir, ".a.tmp-*")
	if err != nil {
		t.Fatal(err)
	}
	b, untrackB, err := CreateTemp(dir, ".b.tmp-*")
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	b.Close()
	untrackB()
	removed := RemoveTemps()
	if len(removed) != 1 || removed[0] != a.Name() {
		t.Fatalf("removed %v, want only %s", removed, a.Name())
	}
	if names := entries(t, dir); len(names) != 1 || names[0] != filepath.Base(b.Name()) {
		t.Fatalf("directory holds %v", names)
	}
	untrackA() // after the cleanup: harmless
	if removed := RemoveTemps(); len(removed) != 0 {
		t.Fatalf("second cleanup removed %v", removed)
	}
}

func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}
