package circuit

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// referenceStep is the readable reference for Sim: for every cell, gather
// its 9*C neighbourhood bits one by one, evaluate the netlist with Eval
// (gate by gate through Truth), and keep the old state where fire says the
// cell does not update.
func referenceStep(nl *Netlist, src *Grid, b Boundary, fire func(y, x int) bool) *Grid {
	dst := NewGrid(src.H, src.W, src.C)
	in := make([]uint8, 9*src.C)
	for y := 0; y < src.H; y++ {
		for x := 0; x < src.W; x++ {
			for n := 0; n < 9; n++ {
				ny, nx := y+n/3-1, x+n%3-1
				outside := ny < 0 || ny >= src.H || nx < 0 || nx >= src.W
				ny, nx = (ny+src.H)%src.H, (nx+src.W)%src.W
				for c := 0; c < src.C; c++ {
					in[n*src.C+c] = 0
					if !outside || b == Periodic {
						in[n*src.C+c] = src.Get(ny, nx, c)
					}
				}
			}
			out := nl.Eval(in)
			for c := 0; c < src.C; c++ {
				v := out[c]
				if fire != nil && !fire(y, x) {
					v = src.Get(y, x, c)
				}
				dst.Set(y, x, c, v)
			}
		}
	}
	return dst
}

// fireFunc reads the simulator's fire masks bit by bit.
func fireFunc(w int, p float64, seed uint64, step int) func(y, x int) bool {
	return func(y, x int) bool {
		m := make([]uint64, (w+63)/64)
		FireMask(m, w, p, seed, step, y)
		return m[x/64]>>(x%64)&1 == 1
	}
}

// randomCA draws a random C-channel cellular-automaton netlist.
func randomCA(rng *rand.Rand, c, n int) *Netlist {
	return randomNetlist(rng, 9*c, n, c)
}

func TestSimMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 0))
	sizes := [][2]int{{1, 1}, {3, 3}, {5, 64}, {4, 65}, {7, 130}, {2, 200}, {9, 63}}
	for _, c := range []int{1, 3} {
		for _, sz := range sizes {
			for _, b := range []Boundary{Periodic, Zero} {
				for _, workers := range []int{1, 3} {
					name := fmt.Sprintf("C%d_%dx%d_%v_w%d", c, sz[0], sz[1], b, workers)
					t.Run(name, func(t *testing.T) {
						nl := randomCA(rng, c, 40)
						if c == 1 && sz[0] == 5 {
							nl = LifeCircuit()
						}
						g := NewGrid(sz[0], sz[1], c)
						g.Randomize(rng)
						checkSteps(t, nl, g, b, workers)
					})
				}
			}
		}
	}
}

// Conway's Life on a periodic grid, checked against integer counting over
// many steps, including a glider that crosses the wrap-around edges.
func TestSimRunsLife(t *testing.T) {
	for _, b := range []Boundary{Periodic, Zero} {
		rng := rand.New(rand.NewPCG(2, 0))
		g := NewGrid(70, 130, 1)
		g.Randomize(rng)
		sim := NewSim(LifeCircuit(), b, 2)
		want := g.Clone()
		for range 20 {
			want = lifeStep(want, b)
		}
		if got := sim.Run(g, 20); !got.Equal(want) {
			t.Fatalf("%v: Life circuit differs from Life after 20 steps", b)
		}
	}
}

// lifeStep is Conway's rule by integer counting, cell by cell.
func lifeStep(src *Grid, b Boundary) *Grid {
	dst := NewGrid(src.H, src.W, 1)
	nb := make([]uint8, 9)
	for y := 0; y < src.H; y++ {
		for x := 0; x < src.W; x++ {
			for n := range nb {
				ny, nx := y+n/3-1, x+n%3-1
				nb[n] = 0
				if b == Periodic {
					nb[n] = src.Get((ny+src.H)%src.H, (nx+src.W)%src.W, 0)
				} else if ny >= 0 && ny < src.H && nx >= 0 && nx < src.W {
					nb[n] = src.Get(ny, nx, 0)
				}
			}
			dst.Set(y, x, 0, lifeRule(nb))
		}
	}
	return dst
}

func TestSimDeterministicAcrossWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 0))
	nl := randomCA(rng, 2, 80)
	g := NewGrid(37, 300, 2)
	g.Randomize(rng)
	var first *Grid
	for _, w := range []int{1, 2, 5, 37} {
		sim := NewSim(nl, Zero, w)
		a, b := g.Clone(), NewGrid(g.H, g.W, g.C)
		for step := range 6 {
			sim.StepAsync(b, a, 0.6, 99, step)
			a, b = b, a
		}
		if first == nil {
			first = a
		} else if !a.Equal(first) {
			t.Fatalf("%d workers give a different grid than 1", w)
		}
	}
}

func TestFireMaskRate(t *testing.T) {
	for _, p := range []float64{0, 0.25, 0.6, 1} {
		m := make([]uint64, 16)
		ones := 0
		for y := range 200 {
			FireMask(m, 1000, p, 1, 0, y)
			for _, w := range m {
				for ; w != 0; w &= w - 1 {
					ones++
				}
			}
		}
		got := float64(ones) / (200 * 1000)
		if d := got - p; d > 0.01 || d < -0.01 {
			t.Errorf("p = %v: fraction of fired cells %v", p, got)
		}
	}
}

func TestGridCells(t *testing.T) {
	bits := make([]uint8, 3*70*2)
	for i := range bits {
		bits[i] = uint8(i*7%3) & 1
	}
	g := FromCells(3, 70, 2, bits)
	if g.Get(2, 69, 1) != bits[(2*70+69)*2+1] {
		t.Error("Get disagrees with FromCells layout")
	}
	for i, b := range g.Unpack() {
		if b != bits[i] {
			t.Fatalf("Cells()[%d] = %d, want %d", i, b, bits[i])
		}
	}
}

func TestStepLifeMatchesLife(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 0))
	for _, b := range []Boundary{Periodic, Zero} {
		for _, sz := range [][2]int{{1, 1}, {3, 5}, {33, 64}, {20, 150}} {
			g := NewGrid(sz[0], sz[1], 1)
			g.Randomize(rng)
			got := NewGrid(sz[0], sz[1], 1)
			StepLife(got, g, b, 3)
			if want := lifeStep(g, b); !got.Equal(want) {
				t.Fatalf("%v %v: StepLife differs from Life", b, sz)
			}
		}
	}
}

func TestStepFireMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 0))
	nl := randomCA(rng, 2, 50)
	g := NewGrid(6, 70, 2)
	g.Randomize(rng)
	fire := NewGrid(6, 70, 1)
	fire.Randomize(rng)
	got := NewGrid(6, 70, 2)
	NewSim(nl, Zero, 2).StepFire(got, g, fire)
	want := referenceStep(nl, g, Zero, func(y, x int) bool { return fire.Get(y, x, 0) == 1 })
	if !got.Equal(want) {
		t.Fatal("StepFire differs from the reference")
	}
}

// Outputs that are inputs (a channel copied from a neighbour) or constants
// need no gate of their own.
func TestSimWireAndConstantOutputs(t *testing.T) {
	nl := wireConstCA()
	rng := rand.New(rand.NewPCG(8, 0))
	g := NewGrid(4, 100, 2)
	g.Randomize(rng)
	for _, b := range []Boundary{Periodic, Zero} {
		checkSteps(t, nl, g, b, 2)
		got := NewSim(nl, b, 2).Run(g, 1)
		if got.Get(2, 99, 1) != 1 || got.Get(1, 1, 0) != g.Get(1, 0, 1) {
			t.Fatalf("%v: wrong wire or constant", b)
		}
	}
}

// Two channels taking the same gate's value, in synchronous and
// asynchronous steps (the first writes the next grid directly, the second
// copies it).
func TestSimSharedOutputs(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 0))
	nl := randomCA(rng, 3, 30)
	nl.Outputs = []int32{nl.Outputs[0], nl.Outputs[0], nl.Outputs[0]}
	g := NewGrid(5, 90, 3)
	g.Randomize(rng)
	checkSteps(t, nl, g, Periodic, 2)
}

// checkSteps compares one synchronous and one asynchronous step of the
// simulator from g with the reference.
func checkSteps(t *testing.T, nl *Netlist, g *Grid, b Boundary, workers int) {
	t.Helper()
	sim := NewSim(nl, b, workers)
	got := NewGrid(g.H, g.W, g.C)
	sim.Step(got, g)
	if want := referenceStep(nl, g, b, nil); !got.Equal(want) {
		t.Fatal("sync step differs from the reference")
	}
	sim.StepAsync(got, g, 0.6, 5, 3)
	if want := referenceStep(nl, g, b, fireFunc(g.W, 0.6, 5, 3)); !got.Equal(want) {
		t.Fatal("async step differs from the reference")
	}
}

// ReferenceStep exports referenceStep to the external tests (dlca_test.go
// holds dlca's hard rollout to it), which cannot see unexported names.
var ReferenceStep = referenceStep
