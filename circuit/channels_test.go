package circuit

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// Pruned rules run the kept channels exactly as the full rule does, from
// random states, synchronously and asynchronously, and never have more
// gates.
func TestKeepChannelsKeepsTheirTrajectory(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 0))
	for trial := range 40 {
		c := 2 + rng.IntN(4)
		nl := randomCA(rng, c, 20+rng.IntN(80))
		keep := []int{rng.IntN(c)}
		p, _, err := KeepChannels(nl, keep)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Gates) > len(RemoveDead(nl).Gates) {
			t.Errorf("trial %d: pruning grew %d gates to %d", trial, len(RemoveDead(nl).Gates), len(p.Gates))
		}
		g := NewGrid(9, 70, c)
		g.Randomize(rng)
		a, b := g.Clone(), g.Clone()
		full, pruned := NewSim(nl, Periodic, 1), NewSim(p, Periodic, 1)
		na, nb := NewGrid(9, 70, c), NewGrid(9, 70, c)
		for step := range 12 {
			if step%2 == 0 {
				full.Step(na, a)
				pruned.Step(nb, b)
			} else {
				full.StepAsync(na, a, 0.5, 3, step)
				pruned.StepAsync(nb, b, 0.5, 3, step)
			}
			a, na, b, nb = na, a, nb, b
			if !slices.Equal(a.Planes[keep[0]], b.Planes[keep[0]]) {
				t.Fatalf("trial %d: channel %d differs after step %d", trial, keep[0], step+1)
			}
		}
	}
}

// The learned checkerboard's pattern in channel 0 needs 2 gates, within
// the paper's 5 after pruning, and still grows.
func TestKeepChannelsPrunesTheCheckerboard(t *testing.T) {
	s, _ := Simplify(learned(t, "checkerboard"))
	p, kept, err := KeepChannels(s, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	// Channel 0 reads channels 5 and 6, which copy channel 0 of a neighbour.
	if !slices.Equal(kept, []int{0, 5, 6}) {
		t.Errorf("kept channels %v, want [0 5 6]", kept)
	}
	if len(p.Gates) > 5 {
		t.Errorf("channel 0 of the checkerboard needs %d gates, want at most 5", len(p.Gates))
	}
	g := NewGrid(16, 16, p.Channels())
	g.Randomize(rand.New(rand.NewPCG(5, 0)))
	g = NewSim(p, Zero, 1).Run(g, 20)
	for y := range g.H {
		for x := range g.W {
			if g.Get(y, x, 0) != uint8((y/2+x/2)%2) {
				t.Fatalf("cell (%d, %d) is not the checkerboard's after 20 steps", y, x)
			}
		}
	}
}

func TestKeepChannelsErrors(t *testing.T) {
	for _, c := range []struct {
		nl   *Netlist
		keep []int
	}{
		{LifeCircuit(), nil},
		{LifeCircuit(), []int{1}},
		{LifeCircuit(), []int{-1}},
		{&Netlist{NumInputs: 2, Outputs: []int32{0}}, []int{0}},
	} {
		if _, _, err := KeepChannels(c.nl, c.keep); err == nil {
			t.Errorf("KeepChannels(%d inputs, %v): no error", c.nl.NumInputs, c.keep)
		}
	}
}
