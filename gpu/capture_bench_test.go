//go:build !js

// The benchmark reads the process's CPU time through getrusage, which
// GOOS=js lacks; the browser runs the tests, not the benchmarks.

package gpu

import (
	"syscall"
	"testing"
	"time"

	"github.com/dlca/dlca/autograd"
)

// BenchmarkCapturedMLPStep times one Adam step of cmd/mnist's MLP
// (784-128-10, batch 128, a new batch each step) on the autograd GPU
// device: eager, captured and replayed, captured with fusion, and with
// fusion into the matrix products' stores too (off by default on a
// software adapter). Each
// reports the dispatches of a step and the process's CPU time per step
// (cpu-ms/op), which a shared machine's load moves less than the wall
// time. On a software adapter (lavapipe) neither says anything about a
// GPU.
//
//	go test ./gpu -run '^$' -bench CapturedMLPStep -benchtime 50x
func BenchmarkCapturedMLPStep(b *testing.B) {
	const in, hidden, out, batch = 784, 128, 10, 128
	for _, path := range []string{"eager", "captured", "fused", "fused-epilogues"} {
		b.Run(path, func(b *testing.B) {
			dev := testAutograd(b)
			r := newMLPRunSized(b, dev, 1, false, nil, in, hidden, out)
			var batches [4][2]*autograd.Tensor
			for i := range batches {
				batches[i][0], batches[i][1] = mlpBatchSized(i, batch, in, out)
			}
			run := func(i int) error {
				x, y := batches[i%len(batches)][0], batches[i%len(batches)][1]
				xd, err := x.To(dev)
				if err != nil {
					return err
				}
				yd, err := y.To(dev)
				if err != nil {
					return err
				}
				_, err = r.step([]*autograd.Tensor{xd, yd})
				return err
			}
			if path != "eager" {
				capture := CaptureUnfused
				if path != "captured" {
					capture = Capture
				}
				step := capture(dev, r.step)
				step.epilogues = path == "fused-epilogues"
				defer step.Release()
				run = func(i int) error {
					_, err := step.Run(batches[i%len(batches)][0], batches[i%len(batches)][1])
					return err
				}
			}
			for i := range 3 { // warm-up, capture, pipelines compiled
				if err := run(i); err != nil {
					b.Fatal(err)
				}
			}
			d0, _ := dev.Counts()
			if err := run(0); err != nil {
				b.Fatal(err)
			}
			d1, _ := dev.Counts()
			cpu0 := cpuTime()
			n := 0
			for b.Loop() {
				if err := run(n); err != nil {
					b.Fatal(err)
				}
				n++
			}
			if _, err := r.model.Parameters()[0].To(autograd.CPU); err != nil { // waits for the last step
				b.Fatal(err)
			}
			b.ReportMetric(float64(d1-d0), "dispatches/op")
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Millisecond)/float64(n), "cpu-ms/op")
		})
	}
}

// cpuTime returns the process's user and system CPU time.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
