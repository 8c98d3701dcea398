package dlca

import (
	"math/rand/v2"
	"testing"

	"github.com/dlca/dlca/gates"
)

// updateLayerBench is one of the checkerboard's update layers for one step:
// 256 gates over 256 inputs, 512 rows (batch 2 of 16x16 cells).
func updateLayerBench(b *testing.B) (fmLayer, []float32, []float32, []float32, []float32, int) {
	rng := rand.New(rand.NewPCG(1, 2))
	w, err := gates.UniqueWiring(256, 256, rng)
	if err != nil {
		b.Fatal(err)
	}
	l := fmLayer{groups: 1, in: 256, out: 256, w: w}
	rows := 512
	x := make([]float32, 256*rows)
	gy := make([]float32, 256*rows)
	for i := range x {
		x[i], gy[i] = rng.Float32(), rng.Float32()-0.5
	}
	coef := make([]float32, 4*256)
	for i := range coef {
		coef[i] = rng.Float32()
	}
	return l, x, gy, coef, make([]float32, 256*rows), rows
}

func BenchmarkForwardUpdateLayer(b *testing.B) {
	l, x, _, coef, y, rows := updateLayerBench(b)
	for b.Loop() {
		forwardFM(y, x, coef, l, rows)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*l.gates()*rows), "ns/gate")
}

func BenchmarkBackwardUpdateLayer(b *testing.B) {
	l, x, gy, coef, dx, rows := updateLayerBench(b)
	sums := make([]float64, 4*l.gates())
	for b.Loop() {
		backwardFM(dx, sums, gy, x, coef, l, rows)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*l.gates()*rows), "ns/gate")
}

// BenchmarkCircuitStep64 is one hard step of a 64x64 grid (64 words of 64
// cells) with the checkerboard's architecture and random logits: a netlist
// of thousands of gates, far more than a trained model keeps.
func BenchmarkCircuitStep64(b *testing.B) {
	m := tinyModel(b, checkerboardConfig(), 1)
	c := m.Circuit()
	src := randomBits(1, 1, 64, 64, 8)
	dst := NewBits(1, 64, 64, 8)
	b.ResetTimer()
	for b.Loop() {
		c.Step(dst, src, nil)
	}
	b.ReportMetric(float64(len(c.Netlist.Gates)), "gates")
	b.ReportMetric(float64(64*64*b.N)/b.Elapsed().Seconds(), "cells/s")
}
