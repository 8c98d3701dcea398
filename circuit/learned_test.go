package circuit

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The testdata netlists are real learned circuits, as dlca.Model.Netlist
// extracts them from models trained by `dlca train`:
//
//   - life.netlist.json: experiment gameoflife, seed 23, 3000 iterations,
//     hard loss 0, 357 active gates;
//   - checkerboard.netlist.json: experiment checkerboard (synchronous),
//     seed 23, 500 iterations, hard loss 0, 68 active gates.
func learned(t testing.TB, name string) *Netlist {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name+".netlist.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	nl, err := ReadNetlist(f)
	if err != nil {
		t.Fatal(err)
	}
	return nl
}

// The learned Game of Life is Life on all 512 neighbourhoods, before and
// after simplification, which must shrink it to at most 50 gates (issue
// #20's target) and no more than the hand-made LifeCircuit's 28.
func TestLearnedLifeIsLife(t *testing.T) {
	nl := learned(t, "life")
	s, _ := Simplify(nl)
	for _, n := range []*Netlist{nl, s} {
		if m, err := Equivalent(n, LifeCircuit(), 1, 1); err != nil || m != nil {
			t.Fatalf("the learned circuit (%d gates) is not Life: %v %v", len(n.Gates), m, err)
		}
	}
	if len(s.Gates) > 50 || len(s.Gates) > len(LifeCircuit().Gates) {
		t.Errorf("Simplify left the learned Life at %d gates, want at most 50 and at most LifeCircuit's %d",
			len(s.Gates), len(LifeCircuit().Gates))
	}
}

// The learned checkerboard rule, simplified, still grows the 2x2-square
// checkerboard from random bits in channel 0 of a 16x16 zero-bounded grid
// within 20 steps, and keeps it on a 64x64 grid for 80.
func TestLearnedCheckerboardGrowsTheTarget(t *testing.T) {
	nl := learned(t, "checkerboard")
	s, _ := Simplify(nl)
	if m, err := Equivalent(nl, s, 4096, 2); err != nil || m != nil {
		t.Fatalf("Simplify changed the learned rule: %v %v", m, err)
	}
	if bound := gateLowerBound(s); len(s.Gates) != bound {
		t.Errorf("Simplify left the learned checkerboard at %d gates; no circuit can have fewer than %d", len(s.Gates), bound)
	}
	rng := rand.New(rand.NewPCG(5, 0))
	for _, size := range [][2]int{{16, 20}, {64, 80}} {
		g := NewGrid(size[0], size[0], nl.Channels())
		g.Randomize(rng)
		g = NewSim(s, Zero, 2).Run(g, size[1])
		wrong := 0
		for y := range g.H {
			for x := range g.W {
				if g.Get(y, x, 0) != uint8((y/2+x/2)%2) {
					wrong++
				}
			}
		}
		if wrong != 0 {
			t.Errorf("%dx%d after %d steps: %d cells differ from the checkerboard", g.H, g.W, size[1], wrong)
		}
	}
}

// BenchmarkLearned runs the learned circuits on a 1024x1024 grid, as
// extracted and simplified.
func BenchmarkLearned(b *testing.B) {
	for _, c := range []struct {
		name     string
		boundary Boundary
	}{{"life", Periodic}, {"checkerboard", Zero}} {
		nl := learned(b, c.name)
		s, _ := Simplify(nl)
		for _, v := range []struct {
			name string
			nl   *Netlist
		}{{"extracted", nl}, {"simplified", s}} {
			b.Run(fmt.Sprintf("%s/%s-%dgates", c.name, v.name, len(v.nl.Gates)), func(b *testing.B) {
				g := benchGrid(v.nl.Channels())
				next := NewGrid(g.H, g.W, g.C)
				sim := NewSim(v.nl, c.boundary, 0)
				cb := StartCells(b)
				for i := 0; i < b.N; i++ {
					sim.Step(next, g)
					g, next = next, g
				}
				cb.Report(g.H * g.W)
			})
		}
	}
}

// gateLowerBound returns a number of gates no netlist computing nl's
// outputs can do with, when each output depends on at most maxSupport
// inputs: group the outputs whose (functional) supports share inputs;
// a group reading m inputs in all needs at least m-1 two-input gates to
// connect them, and groups can only share gates by joining, which never
// lowers the sum.
func gateLowerBound(nl *Netlist) int {
	cones := conesOf(nl)
	group := map[int32]int32{} // input -> a representative input of its group
	var find func(x int32) int32
	find = func(x int32) int32 {
		if p, ok := group[x]; ok && p != x {
			r := find(p)
			group[x] = r
			return r
		}
		group[x] = x
		return x
	}
	for _, o := range nl.Outputs {
		c := cones[o]
		if c.big {
			panic("gateLowerBound: an output depends on too many inputs")
		}
		for _, v := range c.support {
			group[find(v)] = find(c.support[0])
		}
	}
	size := map[int32]int{}
	for x := range group {
		size[find(x)]++
	}
	bound := 0
	for _, m := range size {
		bound += m - 1
	}
	return bound
}

// BenchmarkLearnedLifeVsClassic steps the simplified learned Life in the
// simulator and the hand-written StepLife in turn, one worker each (on the
// benchmark's own goroutine), on 1024x1024 periodic grids, and reports the
// learned circuit's speed as a fraction of StepLife's (x-classic; issue
// #20's target: at least 0.8). Taking turns step by step, both see the
// same machine load; each step's cost is the process's CPU time, which
// time spent waiting for a core does not count (wall time, where the
// platform gives none).
func BenchmarkLearnedLifeVsClassic(b *testing.B) {
	s, _ := Simplify(learned(b, "life"))
	sim := NewSim(s, Periodic, 1)
	g, h := benchGrid(1), benchGrid(1)
	gn, hn := NewGrid(g.H, g.W, 1), NewGrid(g.H, g.W, 1)
	clock := cpuTime
	if clock() == 0 {
		start := time.Now()
		clock = func() time.Duration { return time.Since(start) }
	}
	var learnedTime, classicTime time.Duration
	for b.Loop() {
		t0 := clock()
		sim.Step(gn, g)
		t1 := clock()
		StepLife(hn, h, Periodic, 1)
		classicTime += clock() - t1
		learnedTime += t1 - t0
		g, gn, h, hn = gn, g, hn, h
	}
	if !g.Equal(h) {
		b.Fatal("the learned Life and StepLife disagree")
	}
	b.ReportMetric(classicTime.Seconds()/learnedTime.Seconds(), "x-classic")
}

// BenchmarkSimplify times Simplify on the learned circuits (all passes,
// rounds until nothing changes).
func BenchmarkSimplify(b *testing.B) {
	for _, name := range []string{"life", "checkerboard"} {
		nl := learned(b, name)
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				Simplify(nl)
			}
		})
	}
}

// Simplify finds circuits no larger than Yosys's ABC does from the same
// extracted netlists, mapping to every 2-input gate type (the comparison
// in docs/circuits.md). ABC's count includes any NOT cells.
func TestSimplifyAgainstABC(t *testing.T) {
	needTool(t, "yosys", "yosys")
	for _, name := range []string{"life", "checkerboard"} {
		nl := RemoveDead(learned(t, name))
		s, _ := Simplify(nl)
		dir := t.TempDir()
		writeVerilogFile(t, dir, nl, Options{Name: "rule", Height: 16, Width: 16})
		out := run(t, dir, "yosys", "-p", "read_verilog rule.v; synth -flatten -top rule; "+
			"abc -g AND,NAND,OR,NOR,XOR,XNOR,ANDNOT,ORNOT; opt_clean; stat")
		i := strings.LastIndex(out, "Number of cells:")
		if i < 0 {
			t.Fatalf("%s: no cell count in Yosys's statistics:\n%s", name, out)
		}
		abc, err := strconv.Atoi(strings.Fields(out[i+len("Number of cells:"):])[0])
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: extracted %d gates, Simplify %d, Yosys/ABC %d", name, len(nl.Gates), len(s.Gates), abc)
		if len(s.Gates) > abc {
			t.Errorf("%s: Simplify gives %d gates, ABC %d", name, len(s.Gates), abc)
		}
	}
}
