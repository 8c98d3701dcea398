package circuit_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/gates"
)

// learnedLike returns a model of cfg shaped like a trained one: every gate
// passes a through, except active randomly chosen gates given a random op
// other than A and B.
func learnedLike(t testing.TB, cfg dlca.Config, active int, seed uint64) *dlca.Model {
	t.Helper()
	m, err := dlca.New(cfg, autograd.Float32)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	layers := m.Layers()
	for range active {
		l := layers[rng.IntN(len(layers))]
		g := rng.IntN(l.Logits.Len() / gates.NumOps)
		op := gates.Op(rng.IntN(gates.NumOps))
		for op == gates.A || op == gates.B {
			op = gates.Op(rng.IntN(gates.NumOps))
		}
		l.Logits.SetAt(g*gates.NumOps+int(op), 20) // above the pass-through's 10
	}
	return m
}

// smallConfig is a 3-channel CA with the paper's kernel shape.
func smallConfig(b circuit.Boundary) dlca.Config {
	return dlca.Config{Height: 8, Width: 8, Channels: 3, Boundary: b, Kernels: 4,
		KernelLayers: []int{9, 8, 4, 2}, UpdateLayers: []int{32, 16, 8, 6, 3},
		Seed: 3, PassThrough: dlca.DefaultPassThrough, FireRate: dlca.DefaultFireRate}
}

// The hard rollout of a dlca model (dlca.Circuit, which runs circuit.Sim)
// agrees bit for bit with the plain per-cell reference (ReferenceStep over
// Netlist.Eval) on the netlist dlca extracts, synchronous and asynchronous
// (with dlca's fire masks), on both boundaries, on a batch of two boards,
// and so does the simulator on the netlist after Simplify.
func TestDLCAHardRolloutMatchesReference(t *testing.T) {
	const steps = 6
	for _, b := range []circuit.Boundary{circuit.Periodic, circuit.Zero} {
		for _, async := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v-async=%v", b, async), func(t *testing.T) {
				cfg := smallConfig(b)
				m := learnedLike(t, cfg, 60, 9)
				start := dlca.NewBits(2, 9, 70, cfg.Channels)
				rng := rand.New(rand.NewPCG(4, 0))
				for _, g := range start.Boards {
					g.Randomize(rng)
				}
				got := m.Circuit().Rollout(start, steps, dlca.HardOptions{Async: async, Seed: 5})

				nl := m.Netlist()
				if len(nl.Gates) < 10 {
					t.Fatalf("the model's circuit has only %d gates: the test would prove little", len(nl.Gates))
				}
				simple, report := circuit.Simplify(nl)
				if mm, err := circuit.Equivalent(nl, simple, 1024, 1); err != nil || mm != nil {
					t.Fatalf("Simplify changed the model's rule: %v %v", mm, err)
				}
				if sections := sectionNames(report.Before); sections != "perception update all" {
					t.Fatalf("the report counts sections %q, want perception update all", sections)
				}
				sim := circuit.NewSim(simple, b, 2)
				masks := dlca.NewFireMasks(5, cfg.FireRate)
				ref, onSim := start.Clone(), start.Clone()
				hw := start.Height * start.Width
				for range steps {
					var fire []bool
					if async {
						fire = masks.Next(start.Cells())
					}
					for i, cur := range ref.Boards {
						var fireAt func(y, x int) bool
						var mask *circuit.Grid
						if fire != nil {
							board := fire[i*hw : (i+1)*hw]
							fireAt = func(y, x int) bool { return board[y*start.Width+x] }
							mask = fireGrid(board, start.Height, start.Width)
						}
						ref.Boards[i] = circuit.ReferenceStep(nl, cur, b, fireAt)
						next := circuit.NewGrid(cur.H, cur.W, cur.C)
						if mask != nil {
							sim.StepFire(next, onSim.Boards[i], mask)
						} else {
							sim.Step(next, onSim.Boards[i])
						}
						onSim.Boards[i] = next
					}
				}
				for i := range ref.Boards {
					if !got.Boards[i].Equal(ref.Boards[i]) {
						t.Fatalf("board %d: dlca's hard rollout differs from the reference", i)
					}
					if !onSim.Boards[i].Equal(ref.Boards[i]) {
						t.Fatalf("board %d: the simulator on the simplified netlist (%d gates) differs from the reference", i, len(simple.Gates))
					}
				}
			})
		}
	}
}

// fireGrid turns dlca's per-cell fire draws into a one-channel grid.
func fireGrid(fire []bool, h, w int) *circuit.Grid {
	g := circuit.NewGrid(h, w, 1)
	for i, f := range fire {
		if f {
			g.Set(i/w, i%w, 0, 1)
		}
	}
	return g
}

// sectionNames lists the rows' sections, space-separated.
func sectionNames(rows []circuit.OpCounts) string {
	var names []string
	for _, r := range rows {
		names = append(names, r.Section)
	}
	return strings.Join(names, " ")
}
