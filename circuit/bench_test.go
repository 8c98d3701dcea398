package circuit

import (
	"math/rand/v2"
	"testing"
	"time"
)

// benchSize is the side of the benchmarks' square grid.
const benchSize = 1024

// benchGrid returns a random benchSize x benchSize grid with c channels.
func benchGrid(c int) *Grid {
	g := NewGrid(benchSize, benchSize, c)
	g.Randomize(rand.New(rand.NewPCG(1, 0)))
	return g
}

// CellBench times a benchmark loop and reports cell updates per second of
// wall-clock time and per CPU-second (the latter is steadier on a loaded
// machine; it counts every worker's time). Exported for the benchmarks of
// the external test package.
type CellBench struct {
	b   *testing.B
	cpu time.Duration
}

func StartCells(b *testing.B) *CellBench {
	b.ResetTimer()
	return &CellBench{b: b, cpu: cpuTime()}
}

func (c *CellBench) Report(cells int) {
	total := float64(cells) * float64(c.b.N)
	c.b.ReportMetric(total/c.b.Elapsed().Seconds(), "cells/s")
	if cpu := cpuTime() - c.cpu; cpu > 0 {
		c.b.ReportMetric(total/cpu.Seconds(), "cells/cpu-s")
	}
}

func benchSim(b *testing.B, nl *Netlist, async bool) {
	g := benchGrid(nl.Channels())
	next := NewGrid(g.H, g.W, g.C)
	sim := NewSim(nl, Periodic, 0)
	c := StartCells(b)
	for i := 0; i < b.N; i++ {
		if async {
			sim.StepAsync(next, g, 0.6, 1, i)
		} else {
			sim.Step(next, g)
		}
		g, next = next, g
	}
	c.Report(g.H * g.W)
}

// BenchmarkLifeCircuit runs the 28-gate Life netlist through the simulator.
func BenchmarkLifeCircuit(b *testing.B) { benchSim(b, LifeCircuit(), false) }

// BenchmarkLifeCircuitAsync adds fire masks (p = 0.6) to the same.
func BenchmarkLifeCircuitAsync(b *testing.B) { benchSim(b, LifeCircuit(), true) }

// BenchmarkLifeClassic is the hand-written bit-parallel Life, the yardstick.
func BenchmarkLifeClassic(b *testing.B) {
	g := benchGrid(1)
	next := NewGrid(g.H, g.W, 1)
	c := StartCells(b)
	for i := 0; i < b.N; i++ {
		StepLife(next, g, Periodic, 0)
		g, next = next, g
	}
	c.Report(g.H * g.W)
}
