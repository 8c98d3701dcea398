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

// toGrid and fromGrid move a one-board dlca.Bits to and from a Grid.
func toGrid(s *dlca.Bits) *circuit.Grid {
	g := circuit.NewGrid(s.Height, s.Width, s.Channels)
	for y := range s.Height {
		for x := range s.Width {
			for c := range s.Channels {
				g.Set(y, x, c, s.Get(0, y, x, c))
			}
		}
	}
	return g
}

// The simulator, on the netlist dlca extracts from a model, agrees bit for
// bit with dlca's own hard rollout, synchronous and asynchronous (with
// dlca's fire masks), on both boundaries, before and after Simplify.
func TestSimMatchesDLCAHardRollout(t *testing.T) {
	const steps = 6
	for _, b := range []circuit.Boundary{circuit.Periodic, circuit.Zero} {
		for _, async := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v-async=%v", b, async), func(t *testing.T) {
				cfg := smallConfig(b)
				m := learnedLike(t, cfg, 60, 9)
				start := dlca.NewBits(1, 9, 70, cfg.Channels)
				rng := rand.New(rand.NewPCG(4, 0))
				for c := range start.Planes {
					for i := range start.Planes[c] {
						start.Planes[c][i] = rng.Uint64()
					}
				}
				start = toBits(toGrid(start)) // clears the bits past the last cell
				want := toGrid(m.Circuit().Rollout(start, steps, dlca.HardOptions{Async: async, Seed: 5}))

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
				for _, n := range []*circuit.Netlist{nl, simple} {
					sim := circuit.NewSim(n, b, 2)
					cur := toGrid(start)
					masks := dlca.NewFireMasks(5, cfg.FireRate)
					for range steps {
						next := circuit.NewGrid(cur.H, cur.W, cur.C)
						if async {
							sim.StepFire(next, cur, fireGrid(masks.Next(cur.H*cur.W), cur.H, cur.W))
						} else {
							sim.Step(next, cur)
						}
						cur = next
					}
					if !cur.Equal(want) {
						t.Fatalf("simulator (%d gates) differs from dlca's hard rollout", len(n.Gates))
					}
				}
			})
		}
	}
}

func toBits(g *circuit.Grid) *dlca.Bits {
	s := dlca.NewBits(1, g.H, g.W, g.C)
	for y := range g.H {
		for x := range g.W {
			for c := range g.C {
				s.Set(0, y, x, c, g.Get(y, x, c))
			}
		}
	}
	return s
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
