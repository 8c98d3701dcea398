package dlca

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/gates"
)

// hardened returns a copy of m whose logits are 50 on each gate's argmax op
// and 0 elsewhere: its soft rollout on bits is the hard rollout, up to
// e^-50, which rounds away.
func hardened(m *Model) *Model {
	h := m.Clone()
	for _, l := range h.Layers() {
		for g, op := range l.HardOps() {
			for o := range gates.NumOps {
				v := 0.0
				if gates.Op(o) == op {
					v = 50
				}
				l.Logits.SetAt(g*gates.NumOps+o, v)
			}
		}
	}
	return h
}

func randomBits(seed uint64, b, h, w, c int) *Bits {
	rng := rand.New(rand.NewPCG(seed, 3))
	s := NewBits(b, h, w, c)
	for i := range s.Cells() {
		for k := range c {
			s.Set(i/(h*w), i/w%h, i%w, k, uint8(rng.IntN(2)))
		}
	}
	return s
}

// TestCircuitMatchesSoftRolloutOfOneHotModel: the netlist run on bits gives
// exactly the soft rollout of the same model with one-hot gate choices, on
// a grid whose cells do not fill the last word, sync and async, both
// boundaries.
func TestCircuitMatchesSoftRolloutOfOneHotModel(t *testing.T) {
	for _, tc := range []struct {
		b     circuit.Boundary
		async bool
	}{{circuit.Zero, false}, {circuit.Periodic, false}, {circuit.Zero, true}, {circuit.Periodic, true}} {
		t.Run(fmt.Sprintf("%v-async=%v", tc.b, tc.async), func(t *testing.T) {
			m := tinyModel(t, tinyConfig(tc.b), 21)
			start := randomBits(1, 3, 5, 7, 2) // 3 boards whose 7-cell rows fill a word partly
			got := m.Circuit().Rollout(start, 4, HardOptions{Async: tc.async, Seed: 5})
			want := hardened(m).Rollout(start.Tensor(autograd.Float64).NoGrad(), 4, RolloutOptions{Async: tc.async, Seed: 5})
			w := BitsOf(want)
			for i := range w.Cells() {
				for c := range w.Channels {
					if got.Cell(i, c) != w.Cell(i, c) {
						t.Fatalf("cell %d channel %d: circuit %d, soft one-hot %d", i, c, got.Cell(i, c), w.Cell(i, c))
					}
				}
			}
			if m.Netlist().NumInputs != 9*2 || len(m.Netlist().Outputs) != 2 {
				t.Fatalf("netlist shape: %d inputs, %d outputs", m.Netlist().NumInputs, len(m.Netlist().Outputs))
			}
		})
	}
}

// A freshly initialised model passes values through (every gate's argmax is
// A), so its circuit has no gates: each output is some input, reached by
// following the a-wires.
func ExampleModel_Netlist() {
	cfg := Config{Height: 16, Width: 16, Channels: 2, Kernels: 4, KernelLayers: []int{9, 8, 4, 2},
		UpdateLayers: []int{12, 6, 3, 2}, PassThrough: 10, FireRate: 0.6}
	m, err := New(cfg, autograd.Float32)
	if err != nil {
		panic(err)
	}
	nl := m.Netlist()
	fmt.Println(nl.NumInputs, len(nl.Gates), len(nl.Outputs), nl.Outputs[0] < int32(nl.NumInputs))
	// Output: 18 0 2 true
}

// TestRolloutStop: a rollout whose Stop says yes before step k+1 returns
// the state of a k-step rollout, soft and hard, sync and async (the fire
// masks of the steps it ran are the same), and calls After k times.
func TestRolloutStop(t *testing.T) {
	const steps, k = 6, 3
	for _, async := range []bool{false, true} {
		t.Run(fmt.Sprintf("async=%v", async), func(t *testing.T) {
			m := tinyModel(t, tinyConfig(circuit.Periodic), 21)
			start := randomBits(2, 2, 5, 7, 2)
			stopAfter := func(n *int) func() bool { return func() bool { return *n == k } }

			var hardSteps int
			got := m.Circuit().Rollout(start, steps, HardOptions{Async: async, Seed: 5, Stop: stopAfter(&hardSteps),
				After: func(int, *Bits) { hardSteps++ }})
			want := m.Circuit().Rollout(start, k, HardOptions{Async: async, Seed: 5})
			if hardSteps != k || !sameBits(got, want) {
				t.Errorf("hard: %d steps run; stopped state equals the %d-step rollout: %v", hardSteps, k, sameBits(got, want))
			}

			var softSteps int
			init := start.Tensor(autograd.Float64).NoGrad()
			soft := m.Rollout(init, steps, RolloutOptions{Async: async, Seed: 5, Stop: stopAfter(&softSteps),
				After: func(_ int, s *autograd.Tensor) *autograd.Tensor { softSteps++; return s }})
			softWant := m.Rollout(init, k, RolloutOptions{Async: async, Seed: 5})
			if softSteps != k {
				t.Errorf("soft: %d steps run, want %d", softSteps, k)
			}
			for i := range soft.Len() {
				if soft.At(i) != softWant.At(i) {
					t.Fatalf("soft: value %d is %v after stopping, %v after a %d-step rollout", i, soft.At(i), softWant.At(i), k)
				}
			}
		})
	}
}

// sameBits reports whether a and b hold the same cells.
func sameBits(a, b *Bits) bool {
	if a.Cells() != b.Cells() || a.Channels != b.Channels {
		return false
	}
	for i := range a.Cells() {
		for c := range a.Channels {
			if a.Cell(i, c) != b.Cell(i, c) {
				return false
			}
		}
	}
	return true
}
