package gpu_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/gpu"
)

// xorTask is the suite's reduced training run (the full checkerboard is
// documented in docs/gpu.md): a small automaton learns, over a 2-step
// rollout, to leave in channel 0 the XOR of each cell's two initial bits.
func xorTask(t *testing.T) (bptt.Setup, bptt.Run) {
	t.Helper()
	cfg := dlca.Config{
		Height: 6, Width: 6, Channels: 2, Boundary: circuit.Periodic, Kernels: 4,
		KernelLayers: []int{9, 8, 4, 2}, UpdateLayers: []int{16, 8, 4, 2},
		Seed: 23, PassThrough: dlca.DefaultPassThrough, FireRate: dlca.DefaultFireRate,
	}
	m, err := dlca.New(cfg, autograd.Float32)
	if err != nil {
		t.Fatal(err)
	}
	setup := bptt.Setup{Model: m, Batch: 4, Steps: 2, LossChannels: []int{0}, Optimizer: bptt.PaperOptimizer(0.05)}
	src := func(rng *rand.Rand) *bptt.Batch {
		h, w, c := cfg.Height, cfg.Width, cfg.Channels
		b := &bptt.Batch{Height: h, Width: w}
		for range setup.Batch {
			s := make([]float32, h*w*c)
			for i := range s {
				s[i] = float32(rng.IntN(2))
			}
			b.Init = append(b.Init, s...)
			for cell := range h * w {
				b.Target = append(b.Target, float32(int(s[cell*c])^int(s[cell*c+1])))
			}
		}
		return b
	}
	return setup, bptt.Run{Iterations: 400, Seed: 23, Source: src}
}

// trainUntilSolved trains with eng until the hard loss is 0 (or the run
// ends) and returns the metrics.
func trainUntilSolved(t *testing.T, eng bptt.Engine, setup bptt.Setup, run bptt.Run) []bptt.Metrics {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	run.Observers = append(run.Observers, func(e bptt.Event) {
		if e.HardLoss == 0 {
			cancel()
		}
	})
	ms, _, err := bptt.Train(ctx, eng, setup, run)
	if err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	return ms
}

// TestTrainReachesHardLossZero trains with the GPU engine until the argmax
// circuit is exact on a batch, and checks that the soft losses follow the
// CPU engine's on the way.
func TestTrainReachesHardLossZero(t *testing.T) {
	setup, run := xorTask(t)
	g, err := gpu.NewEngine(setup, gpu.Options{Device: gpu.TestDevice(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	got := trainUntilSolved(t, g, setup, run)
	last := got[len(got)-1]
	if last.HardLoss != 0 {
		t.Fatalf("GPU engine: hard loss %v after %d iterations (soft %v), want 0", last.HardLoss, last.Iteration, last.SoftLoss)
	}
	t.Logf("GPU engine: hard loss 0 at iteration %d (soft loss %.3f, %d active gates)", last.Iteration, last.SoftLoss, last.ActiveGates)

	const compared = 30
	cpu, err := bptt.NewCPU(setup)
	if err != nil {
		t.Fatal(err)
	}
	run.Iterations = compared
	want, _, err := bptt.Train(context.Background(), cpu, setup, run)
	if err != nil {
		t.Fatal(err)
	}
	for i := range min(compared, len(got)) {
		if w, g := want[i].SoftLoss, got[i].SoftLoss; math.Abs(w-g) > 1e-3*math.Max(1, w) {
			t.Fatalf("iteration %d: soft loss gpu %v, cpu %v", i+1, g, w)
		}
	}
}
