package gpu_test

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/optim"
	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/dlca"
)

// straightReference is what the CPU computes for one straight-through
// iteration of s on b with the state penalty of weight penalty: the CPU
// engine's loss, clipped logit gradients and trained logits, and dlca's
// rollouts from b's first state, straight-through (every step's state) and
// soft (the final state).
type straightReference struct {
	loss          float64
	grads, logits [][]float64
	states        [][]float32 // after steps 1 to T
	soft          []float32
}

func cpuStraight(t *testing.T, s bptt.Setup, b *bptt.Batch, penalty float64) straightReference {
	t.Helper()
	eng := newCPU(t, s)
	eng.SetStraightThrough(true)
	eng.SetStatePenalty(penalty)
	loss, grads, err := eng.IterateGradients(b)
	if err != nil {
		t.Fatal(err)
	}
	ref := straightReference{loss: loss}
	clip := s.Optimizer.Clip
	for _, g := range grads {
		v := make([]float64, g.Len())
		for i := range v {
			v[i] = math.Max(-clip, math.Min(clip, g.At(i)))
		}
		ref.grads = append(ref.grads, v)
	}
	m, err := eng.Model()
	if err != nil {
		t.Fatal(err)
	}
	ref.logits = logitsOf(m)
	init := autograd.New(append([]float32(nil), b.Init...), s.Batch, b.Height, b.Width, s.Model.Config.Channels)
	keep := func(_ int, state *autograd.Tensor) *autograd.Tensor {
		ref.states = append(ref.states, append([]float32(nil), state.Data32()...))
		return state
	}
	s.Model.Rollout(init, s.Steps, dlca.RolloutOptions{Async: s.Async, Seed: b.FireSeed, StraightThrough: true, After: keep})
	ref.soft = s.Model.Rollout(init, s.Steps, dlca.RolloutOptions{Async: s.Async, Seed: b.FireSeed}).Data32()
	return ref
}

func logitsOf(m *dlca.Model) [][]float64 {
	var out [][]float64
	for _, p := range m.Params() {
		v := make([]float64, p.Len())
		for i := range v {
			v[i] = p.At(i)
		}
		out = append(out, v)
	}
	return out
}

// tieGates gives every eleventh gate of m whose most probable op is not the
// first a tie: the op before it gets the same logit, so the circuit's
// gate is that earlier op (gates.Layer.HardOps breaks ties to the lowest).
// It returns the number of gates tied.
func tieGates(m *dlca.Model) int {
	tied := 0
	for _, p := range m.Params() {
		for g := 0; g < p.Len()/16; g += 11 {
			best := 0
			for o := 1; o < 16; o++ {
				if p.At(16*g+o) > p.At(16*g+best) {
					best = o
				}
			}
			if best > 0 {
				p.SetAt(16*g+best-1, p.At(16*g+best))
				tied++
			}
		}
	}
	return tied
}

// TestEngineStraightThroughMatchesCPU: one straight-through iteration on
// the GPU engine gives the CPU engine's loss (the hard loss), final state,
// logit gradients and updated logits, synchronous (periodic boundary),
// asynchronous (zero) and asynchronous (periodic) with the state penalty
// (its gradient taken at the circuit's states), within the tolerances of
// TestEngineMatchesCPU (the logits within TestEngineAdamWMatchesCPU's).
//
// The paper's initialisation keeps the circuit's rollout moving at every
// step (random logits reach a fixed point after one; on the zero boundary
// the synchronous circuit dies out, all zeros, by step 6), and the soft
// rollout ends elsewhere: the test asserts both, so that a forward pass on
// the soft coefficients, on no gates at all, or on the wrong steps, cannot
// pass. Some gates have tied logits (tieGates), so that a tie broken the
// other way changes the circuit. AdamW's eps is 1e-5, as in
// TestEnginePenaltyAdamWMatchesCPU: some logits' gradients cancel to
// 1e-10, where float32 rounding is as large as the gradient and the
// paper's eps (1e-8) turns it into 3e-4 of a logit in AdamW's first step,
// g/(|g|+eps).
func TestEngineStraightThroughMatchesCPU(t *testing.T) {
	for _, c := range []struct {
		name     string
		async    bool
		boundary circuit.Boundary
		penalty  float64
	}{
		{"bptt 6 steps periodic", false, circuit.Periodic, 0},
		{"bptt 6 steps async", true, circuit.Zero, 0},
		{"bptt 6 steps async periodic state penalty", true, circuit.Periodic, 0.3},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, _, b := checkerboard(t, 5, 6, 6, 0)
			s.Async = c.async
			s.Model.Config.Boundary = c.boundary
			s.Optimizer.Eps = 1e-5
			if tieGates(s.Model) == 0 {
				t.Fatal("no gate tied")
			}
			ref := cpuStraight(t, s, b, c.penalty)
			final := ref.states[len(ref.states)-1]
			if slices.Equal(final, ref.soft) {
				t.Fatal("the soft rollout ends where the circuit's does: the test cannot tell them apart")
			}
			for i, state := range ref.states {
				if !slices.Contains(state, 1) {
					t.Fatalf("the circuit's state after step %d is all zeros: gates that output 0 would pass", i+1)
				}
				if i > 0 && slices.Equal(state, ref.states[i-1]) {
					t.Fatalf("the circuit's state after step %d is that after step %d: a fixed point hides which step read which state", i+1, i)
				}
			}

			e := newEngine(t, s)
			e.SetStraightThrough(true)
			e.SetStatePenalty(c.penalty)
			loss, err := e.Iterate(b)
			if err != nil {
				t.Fatal(err)
			}
			compareForward(t, e, loss, ref.loss, final, 1e-3)
			compareGradients(t, e, layerNames(s.Model), ref.grads, 1e-3)
			m, err := e.Model()
			if err != nil {
				t.Fatal(err)
			}
			compareLogits(t, logitsOf(m), ref.logits, 1e-4)
		})
	}
}

// compareLogits fails t unless every logit is within tol*max(1, |want|) of
// want's.
func compareLogits(t *testing.T, got, want [][]float64, tol float64) {
	t.Helper()
	for l := range want {
		for i, w := range want[l] {
			if math.Abs(got[l][i]-w) > tol*math.Max(1, math.Abs(w)) {
				t.Fatalf("layer %d logit %d: gpu %v, cpu %v", l, i, got[l][i], w)
			}
		}
	}
}

// TestEngineStraightThroughKeepsARightCircuit: on both engines, a
// straight-through iteration on a batch the circuit gets right (its target
// is the circuit's own rollout) has loss 0 and leaves the logits and
// AdamW's state (step count and moments, nonzero after a first iteration)
// as they were, bit for bit; the paper's method on the same batch moves
// the logits.
func TestEngineStraightThroughKeepsARightCircuit(t *testing.T) {
	s, _, b := checkerboard(t, 5, 6, 3, 0)
	s.Async = true
	engines := map[string]func() bptt.StraightThroughEngine{
		"cpu": func() bptt.StraightThroughEngine { return newCPU(t, s) },
		"gpu": func() bptt.StraightThroughEngine { return newEngine(t, s) },
	}
	for name, newEng := range engines {
		t.Run(name, func(t *testing.T) {
			for _, straight := range []bool{true, false} {
				eng := newEng()
				eng.SetStraightThrough(true)
				if loss, err := eng.Iterate(b); err != nil || loss == 0 {
					t.Fatalf("first iteration: loss %v, %v; want a step", loss, err)
				}
				m, err := eng.Model()
				if err != nil {
					t.Fatal(err)
				}
				right := rightBatch(t, s, m, b)
				before := optimizerState(t, eng)
				eng.SetStraightThrough(straight)
				loss, err := eng.Iterate(right)
				if err != nil {
					t.Fatal(err)
				}
				after, err := eng.Model()
				if err != nil {
					t.Fatal(err)
				}
				kept := slices.EqualFunc(logitsOf(after), logitsOf(m), slices.Equal)
				switch {
				case straight && loss != 0:
					t.Fatalf("straight-through on the circuit's own rollout: loss %v, want 0", loss)
				case straight && !kept:
					t.Fatal("a straight-through iteration of loss 0 moved the logits")
				case straight && !sameOptimizerState(before, optimizerState(t, eng)):
					t.Fatal("a straight-through iteration of loss 0 changed AdamW's state")
				case !straight && (loss == 0 || kept):
					t.Fatalf("the paper's method on the same batch: loss %v, logits kept %v; want a step", loss, kept)
				}
			}
		})
	}
}

// rightBatch returns b with its target replaced by the loss channels of m's
// circuit rolled out from b's first state: a batch m's circuit gets right.
func rightBatch(t *testing.T, s bptt.Setup, m *dlca.Model, b *bptt.Batch) *bptt.Batch {
	t.Helper()
	init := autograd.New(b.Init, s.Batch, b.Height, b.Width, m.Config.Channels)
	final := m.Circuit().Rollout(dlca.BitsOf(init), s.Steps, dlca.HardOptions{Async: s.Async, Seed: b.FireSeed})
	right := *b
	right.Target = make([]float32, len(b.Target))
	nl := len(s.LossChannels)
	for i := range final.Cells() {
		for j, k := range s.LossChannels {
			right.Target[i*nl+j] = float32(final.Cell(i, k))
		}
	}
	return &right
}

func optimizerState(t *testing.T, eng bptt.Engine) optim.State {
	t.Helper()
	st, err := eng.(bptt.Resumable).OptimizerState()
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func sameOptimizerState(a, b optim.State) bool {
	if a.Steps != b.Steps || !slices.Equal(a.ParamSteps, b.ParamSteps) || len(a.Buffers) != len(b.Buffers) {
		return false
	}
	for k, bufs := range a.Buffers {
		if !slices.EqualFunc(bufs, b.Buffers[k], slices.Equal) {
			return false
		}
	}
	return true
}

// TestTrainStraightThroughOnGPU trains through bptt.Train with
// straight-through from iteration 3 (Run.StraightThroughFrom): bptt accepts
// the GPU engine, which records its forward program again at iteration 3;
// from there the soft loss it reports is the hard loss, which it is not
// before, and the soft losses follow the CPU engine's.
func TestTrainStraightThroughOnGPU(t *testing.T) {
	s, src, _ := checkerboard(t, 5, 6, 3, 0)
	const from = 3
	run := bptt.Run{Iterations: 5, Seed: 3, Source: src, StraightThroughFrom: from}
	train := func(eng bptt.Engine) []bptt.Metrics {
		ms, _, err := bptt.Train(context.Background(), eng, s, run)
		if err != nil {
			t.Fatal(err)
		}
		return ms
	}
	want := train(newCPU(t, s))
	got := train(newEngine(t, s))
	for i, w := range want {
		g := got[i]
		if math.Abs(w.SoftLoss-g.SoftLoss) > 1e-3*math.Max(1, w.SoftLoss) {
			t.Errorf("iteration %d: soft loss gpu %v, cpu %v", w.Iteration, g.SoftLoss, w.SoftLoss)
		}
		if straight := w.Iteration >= from; straight != (g.SoftLoss == g.HardLoss) {
			t.Errorf("iteration %d (straight-through %v): gpu soft loss %v, hard loss %v", w.Iteration, straight, g.SoftLoss, g.HardLoss)
		}
	}
}
