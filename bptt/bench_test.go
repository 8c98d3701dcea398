package bptt_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/dlca/dlca/bptt"
)

// BenchmarkIterationCheckerboard times one training iteration of the
// paper's checkerboard (16x16, batch 2, 20 steps, 16 kernels, 16 update
// layers) on the CPU engine, hard loss excluded.
func BenchmarkIterationCheckerboard(b *testing.B) {
	e, m := experimentModel(b, "checkerboard")
	setup := e.Setup(m)
	eng, err := bptt.NewCPU(setup)
	if err != nil {
		b.Fatal(err)
	}
	src := e.Source()
	batch := src(newRand(1))
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		if _, err := eng.Iterate(batch); err != nil {
			b.Fatal(err)
		}
	}
	// CPU time per iteration (all threads): unlike ns/op it does not grow
	// when other processes share the cores.
	b.ReportMetric(float64(cpuTime()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
}

// cpuTime returns the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
