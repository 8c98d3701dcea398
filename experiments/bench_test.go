package experiments

import (
	"math/rand/v2"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/gates"
)

// activeModel returns a model of e shaped like a trained one: every gate
// passes its input a through, except active randomly chosen gates given a
// random op other than A and B (a logit above the pass-through's).
func activeModel(tb testing.TB, e *Experiment, active int, seed uint64) *dlca.Model {
	tb.Helper()
	m, err := dlca.New(e.Model, autograd.Float32)
	if err != nil {
		tb.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	layers := m.Layers()
	for range active {
		l := layers[rng.IntN(len(layers))]
		g := rng.IntN(l.Logits.Len() / gates.NumOps)
		op := gates.Op(rng.IntN(gates.NumOps - 2)) // 0..13, then skip A (3) and B (5)
		if op >= gates.A {
			op++
		}
		if op >= gates.B {
			op++
		}
		l.Logits.SetAt(g*gates.NumOps+int(op), 20)
	}
	return m
}

// benchCheck times check name of experiment exp on a model with active
// random gates: netlist extraction and the check's hard rollouts.
func benchCheck(b *testing.B, exp, name string, active int) {
	e, err := Get(exp)
	if err != nil {
		b.Fatal(err)
	}
	m := activeModel(b, e, active, 7)
	for _, c := range e.Checks {
		if c.Name == name {
			for b.Loop() {
				c.Run(e, m)
			}
			return
		}
	}
	b.Fatalf("%s has no check %s", exp, name)
}

// BenchmarkLizardGrowCheck is the lizard's 40x40 grow check (12 steps, 128
// channels) on a model with 300 active gates.
func BenchmarkLizardGrowCheck(b *testing.B) { benchCheck(b, "lizard", "grow", 300) }

// BenchmarkAsyncRobustness is the asynchronous checkerboard's robustness
// check (64x64, 4,000 asynchronous steps, run against both phases) on a
// model with 150 active gates.
func BenchmarkAsyncRobustness(b *testing.B) {
	benchCheck(b, "checkerboard-async", "robustness", 150)
}
