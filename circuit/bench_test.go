package circuit

import (
	"math/rand/v2"
	"testing"
)

// benchSize is the side of the benchmarks' square grid.
const benchSize = 1024

// benchGrid returns a random benchSize x benchSize grid with c channels.
func benchGrid(c int) *Grid {
	g := NewGrid(benchSize, benchSize, c)
	g.Randomize(rand.New(rand.NewPCG(1, 0)))
	return g
}

// reportCells reports the throughput in cell updates per second.
func reportCells(b *testing.B, g *Grid) {
	b.ReportMetric(float64(g.H*g.W)*float64(b.N)/b.Elapsed().Seconds(), "cells/s")
}

func benchSim(b *testing.B, nl *Netlist, async bool) {
	g := benchGrid(nl.Channels())
	next := NewGrid(g.H, g.W, g.C)
	sim := NewSim(nl, Periodic, 0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if async {
			sim.StepAsync(next, g, 0.6, 1, i)
		} else {
			sim.Step(next, g)
		}
		g, next = next, g
	}
	reportCells(b, g)
}

// BenchmarkLifeCircuit runs the 28-gate Life netlist through the simulator.
func BenchmarkLifeCircuit(b *testing.B) { benchSim(b, LifeCircuit(), false) }

// BenchmarkLifeCircuitAsync adds fire masks (p = 0.6) to the same.
func BenchmarkLifeCircuitAsync(b *testing.B) { benchSim(b, LifeCircuit(), true) }

// BenchmarkLifeClassic is the hand-written bit-parallel Life, the yardstick.
func BenchmarkLifeClassic(b *testing.B) {
	g := benchGrid(1)
	next := NewGrid(g.H, g.W, 1)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		StepLife(next, g, Periodic, 0)
		g, next = next, g
	}
	reportCells(b, g)
}
