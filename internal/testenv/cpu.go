//go:build unix

package testenv

import (
	"syscall"
	"testing"
	"time"
)

// CPUSeconds is the process's user and system CPU time so far, in
// seconds: what a benchmark's runs cost on every core, which a shared
// machine moves less than their wall time.
func CPUSeconds(tb testing.TB) float64 {
	tb.Helper()
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano()).Seconds()
}

// BenchPair times two configurations against each other: every iteration
// of b runs run(0, seed) and then run(1, seed) on the iteration's seed
// (1, 2, …), and b reports each one's process CPU seconds per iteration
// (names[k]+"-cpu-s/op") and the second's CPU and wall time over the
// first's (cpu-ratio, wall-ratio).
func BenchPair(b *testing.B, names [2]string, run func(k int, seed uint64)) {
	b.Helper()
	var cpu, wall [2]float64
	seed := uint64(1)
	for b.Loop() {
		for k := range 2 {
			c, w := CPUSeconds(b), time.Now()
			run(k, seed)
			cpu[k] += CPUSeconds(b) - c
			wall[k] += time.Since(w).Seconds()
		}
		seed++
	}
	b.ReportMetric(cpu[0]/float64(b.N), names[0]+"-cpu-s/op")
	b.ReportMetric(cpu[1]/float64(b.N), names[1]+"-cpu-s/op")
	b.ReportMetric(cpu[1]/cpu[0], "cpu-ratio")
	b.ReportMetric(wall[1]/wall[0], "wall-ratio")
}
