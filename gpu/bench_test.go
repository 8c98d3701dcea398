package gpu_test

import (
	"math/rand/v2"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/experiments"
	"github.com/dlca/dlca/gpu"
)

// benchIterate times Engine.Iterate on the checkerboard architecture on an
// h x w grid with the experiment's batch and steps (steps > 0 overrides).
// On a software adapter (lavapipe) the figures say nothing about a GPU.
func benchIterate(b *testing.B, h, w, steps int) {
	e, err := experiments.Get("checkerboard")
	if err != nil {
		b.Fatal(err)
	}
	e.Model.Height, e.Model.Width = h, w
	if steps > 0 {
		e.Steps = steps
	}
	m, err := dlca.New(e.Model, autograd.Float32)
	if err != nil {
		b.Fatal(err)
	}
	eng, err := gpu.NewEngine(e.Setup(m), gpu.Options{Device: gpu.TestDevice(b)})
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	batch := e.Source()(rand.New(rand.NewPCG(1, 1)))
	if _, err := eng.Iterate(batch); err != nil { // compiles the shaders
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := eng.Iterate(batch); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIterateSmall: 6x6 grid, 4 steps.
func BenchmarkIterateSmall(b *testing.B) { benchIterate(b, 6, 6, 4) }

// BenchmarkIterateCheckerboard: the paper's configuration, 16x16, batch 2,
// 20 steps (bptt's BenchmarkIterationCheckerboard is the CPU's figure).
func BenchmarkIterateCheckerboard(b *testing.B) { benchIterate(b, 16, 16, 0) }
