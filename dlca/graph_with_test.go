package dlca

import (
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/circuit"
)

// TestGraphRolloutWithMatchesRollout holds GraphRolloutWith (general ops,
// fused gate layers, fire masks as a tensor) to Rollout (dlca's fused step
// op, fire masks drawn inside) with the same options: the same final state
// and gradients, both boundaries, synchronous and asynchronous,
// straight-through, with an After that adds up a penalty of the states, and
// checkpointed in segments of 2 and 3 of 5 steps (Recompute).
func TestGraphRolloutWithMatchesRollout(t *testing.T) {
	const steps, seed = 5, 99
	for _, b := range []circuit.Boundary{circuit.Zero, circuit.Periodic} {
		for _, c := range []struct {
			name                     string
			async, straight, penalty bool
			recompute                int
		}{
			{name: "sync"}, {name: "async", async: true}, {name: "straight", straight: true},
			{name: "async straight penalty", async: true, straight: true, penalty: true},
			{name: "penalty", penalty: true},
			{name: "async recompute 2", async: true, recompute: 2}, {name: "straight recompute 3", straight: true, recompute: 3},
		} {
			t.Run(b.String()+" "+c.name, func(t *testing.T) {
				graph := tinyModel(t, tinyConfig(b), 14)
				fused := graph.Clone()
				target := randomState(autograd.Float64, 5, 2, 4, 4, 1)
				s1 := randomState(autograd.Float64, 8, 2, 4, 4, 2).SetRequiresGrad(true)
				s2 := s1.Clone().SetRequiresGrad(true)
				// The penalty of package bptt, written here on its own: the
				// sum of x(1-x) over the states after steps 1 to T-1.
				penalties := [2]*autograd.Tensor{}
				after := func(i int) func(int, *autograd.Tensor) *autograd.Tensor {
					if !c.penalty {
						return nil
					}
					return func(step int, s *autograd.Tensor) *autograd.Tensor {
						if step < steps {
							p := autograd.Sum(autograd.Mul(s, autograd.RSubScalar(s, 1)), false)
							if penalties[i] == nil {
								penalties[i] = p
							} else {
								penalties[i] = autograd.Add(penalties[i], p)
							}
						}
						return s
					}
				}
				opt := GraphOptions{StraightThrough: c.straight, After: after(0), Recompute: c.recompute}
				if c.async {
					opt.Fire = graph.Config.FireTensor(autograd.Float64, seed, steps, 2, 4, 4)
				}
				got := graph.GraphRolloutWith(s1, steps, opt)
				want := fused.Rollout(s2, steps, RolloutOptions{Async: c.async, Seed: seed, StraightThrough: c.straight, After: after(1)})
				assertClose(t, "final state", got, want, 1e-12)
				for i, final := range []*autograd.Tensor{got, want} {
					loss := sse(final, target)
					if penalties[i] != nil {
						loss = autograd.Add(loss, autograd.MulScalar(penalties[i], 0.3))
					}
					if err := loss.Backward(); err != nil {
						t.Fatal(err)
					}
				}
				for i, p := range graph.Params() {
					assertClose(t, "gradient of "+graph.Layers()[i].Name, p.Grad(), fused.Params()[i].Grad(), 1e-10)
				}
				assertClose(t, "gradient of the state", s1.Grad(), s2.Grad(), 1e-10)
			})
		}
	}
}

// The fire tensor holds the masks an asynchronous rollout draws: a rollout
// stepping by Step with each of its rows is Rollout's with the seed.
func TestFireTensorIsRolloutsMasks(t *testing.T) {
	m := tinyModel(t, tinyConfig(circuit.Zero), 3)
	s := randomState(autograd.Float64, 4, 2, 4, 4, 2).NoGrad()
	fire := m.Config.FireTensor(autograd.Float32, 17, 3, 2, 4, 4)
	if got := fire.Shape(); len(got) != 5 || got[0] != 3 || got[1] != 2 || got[4] != 1 {
		t.Fatalf("fire tensor of shape %v, want [3 2 4 4 1]", got)
	}
	fired, state := 0, s
	for step := range 3 {
		mask := make([]bool, 32)
		for i := range mask {
			mask[i] = fire.At(step*32+i) == 1
			if mask[i] {
				fired++
			}
		}
		state = m.Step(state, mask)
	}
	if fired == 0 || fired == 96 {
		t.Fatalf("%d of 96 cells fired: the masks are not random", fired)
	}
	assertClose(t, "3 steps with the tensor's masks", state, m.Rollout(s, 3, RolloutOptions{Async: true, Seed: 17}), 0)
}
