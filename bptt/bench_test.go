package bptt_test

import (
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/experiments"
)

// BenchmarkIterationCheckerboard times one training iteration of the
// paper's checkerboard (16x16, batch 2, 20 steps, 16 kernels, 16 update
// layers) on the CPU engine, hard loss excluded.
func BenchmarkIterationCheckerboard(b *testing.B) {
	e, err := experiments.Get("checkerboard")
	if err != nil {
		b.Fatal(err)
	}
	m, err := dlca.New(e.Model, autograd.Float32)
	if err != nil {
		b.Fatal(err)
	}
	setup := e.Setup(m)
	eng, err := bptt.NewCPU(setup)
	if err != nil {
		b.Fatal(err)
	}
	src := e.Source()
	batch := src(newRand(1))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := eng.Iterate(batch); err != nil {
			b.Fatal(err)
		}
	}
}
