package gputrain

import (
	"testing"

	"github.com/dlca/dlca/bptt"
)

// TestResumeEqualsUninterrupted trains an engine 3 iterations (warm-up,
// capture, replay), hands its model and AdamW state to a new engine, and
// steps both on the same batch: the same loss and logits, bit for bit
// (both unfused). The state is also the CPU engine's format: loading it
// into bptt.NewCPU works.
func TestResumeEqualsUninterrupted(t *testing.T) {
	dev := device(t)
	s, src := trained(t, "checkerboard", 4, 4, 0, 0)
	s.Steps = 2
	a, err := New(dev, s, Options{Unfused: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for it := range 3 {
		if _, err := a.Iterate(batch(src, uint64(it))); err != nil {
			t.Fatal(err)
		}
	}
	state, err := a.OptimizerState()
	if err != nil {
		t.Fatal(err)
	}
	if state.Steps != 3 {
		t.Fatalf("AdamW state after 3 iterations has %d steps", state.Steps)
	}
	resumed := s
	if resumed.Model, err = a.Model(); err != nil {
		t.Fatal(err)
	}
	b, err := New(dev, resumed, Options{Unfused: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.LoadOptimizerState(state); err != nil {
		t.Fatal(err)
	}
	cpu, err := bptt.NewCPU(resumed)
	if err != nil {
		t.Fatal(err)
	}
	if err := cpu.LoadOptimizerState(state); err != nil {
		t.Errorf("the CPU engine refuses the graph engine's AdamW state: %v", err)
	}
	next := batch(src, 9)
	la, err := a.Iterate(next)
	if err != nil {
		t.Fatal(err)
	}
	lb, err := b.Iterate(next)
	if err != nil {
		t.Fatal(err)
	}
	if la != lb {
		t.Errorf("loss of the 4th iteration: uninterrupted %v, resumed %v", la, lb)
	}
	ma, err := a.Model()
	if err != nil {
		t.Fatal(err)
	}
	mb, err := b.Model()
	if err != nil {
		t.Fatal(err)
	}
	if d, at := maxRelDiff(mb, ma); d != 0 {
		t.Errorf("logits after the 4th iteration: resumed differs from uninterrupted by %.3g (layer %s)", d, at)
	}
	if d, _ := maxRelDiff(ma, resumed.Model); d == 0 {
		t.Error("the 4th iteration changed no logit: the test compares nothing")
	}
}
