package bptt_test

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/dlca/dlca/bptt"
)

// BenchmarkIterationCheckerboard times one training iteration of the
// paper's checkerboard (16x16, batch 2, 20 steps, 16 kernels, 16 update
// layers) on the CPU engine with its default settings, hard loss excluded.
func BenchmarkIterationCheckerboard(b *testing.B) { benchmarkIteration(b, "checkerboard", 0) }

// BenchmarkIterationLizard is the same for the lizard (20x20, batch 1, 12
// steps, 128 channels, 4 kernels of 5 layers, 10 update layers of up to
// 512 gates).
func BenchmarkIterationLizard(b *testing.B) { benchmarkIteration(b, "lizard", 0) }

// BenchmarkIterationWorkers times both with one worker and with two,
// fixed (Setup.Workers), instead of the engine's choice: whether the
// second core pays, when one is free.
func BenchmarkIterationWorkers(b *testing.B) {
	for _, name := range []string{"checkerboard", "lizard"} {
		for _, w := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/workers=%d", name, w), func(b *testing.B) { benchmarkIteration(b, name, w) })
		}
	}
}

// benchmarkIteration times the CPU engine's iterations on one batch of the
// experiment with workers workers, after a first one (which allocates the
// buffers) and, when workers is 0, the iterations in which the engine
// chooses its number of workers (reported as workers).
func benchmarkIteration(b *testing.B, name string, workers int) {
	e, m := experimentModel(b, name)
	s := e.Setup(m)
	s.Workers = workers
	eng, err := bptt.NewCPU(s)
	if err != nil {
		b.Fatal(err)
	}
	batch := e.Source()(newRand(1))
	for first := true; first || eng.Workers() == 0; first = false {
		if _, err := eng.Iterate(batch); err != nil {
			b.Fatal(err)
		}
	}
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
	b.ReportMetric(float64(eng.Workers()), "workers")
}

// cpuTime returns the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
