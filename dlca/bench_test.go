package dlca

import "testing"

// BenchmarkCircuitStep64 is one hard step of a 64x64 grid (one word a row)
// with the checkerboard's architecture and random logits: a netlist of
// thousands of gates, far more than a trained model keeps.
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
