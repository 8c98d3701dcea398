package gputrain

import (
	"testing"

	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/dlca"
)

// TestCapturedStepEqualsEager trains three engines from one model on the same
// batches: eager (no capture), captured unfused and captured fused (the
// default), three asynchronous soft iterations (warm-up, capture, replay),
// then three straight-through ones with the state penalty (a new mode:
// warm-up, capture, replay of two steps). The unfused engine's losses and
// logits equal the eager one's bit for bit; the fused one's within float32
// rounding (1e-5 relative). A replayed soft iteration reads back one value
// and submits its work once.
func TestCapturedStepEqualsEager(t *testing.T) {
	dev := device(t)
	s, src := trained(t, "checkerboard", 4, 4, 2, 10)
	s.Steps, s.Async = 2, true
	engines := map[string]*Engine{}
	for name, o := range map[string]Options{"eager": {Eager: true}, "unfused": {Unfused: true}, "fused": {}} {
		e, err := New(dev, s, o)
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		engines[name] = e
	}
	for it := 1; it <= 6; it++ {
		b := batch(src, uint64(it))
		losses := map[string]float64{}
		counts := map[string]Counts{}
		for name, e := range engines {
			e.SetStraightThrough(it > 3)
			if it > 3 {
				e.SetStatePenalty(0.01)
			}
			loss, err := e.Iterate(b)
			if err != nil {
				t.Fatalf("%s, iteration %d: %v", name, it, err)
			}
			losses[name], counts[name] = loss, e.LastCounts()
		}
		if losses["unfused"] != losses["eager"] {
			t.Errorf("iteration %d: loss unfused %v, eager %v: want them equal bit for bit", it, losses["unfused"], losses["eager"])
		}
		if d := losses["fused"] - losses["eager"]; d > 1e-5*max(1, losses["eager"]) || -d > 1e-5*max(1, losses["eager"]) {
			t.Errorf("iteration %d: loss fused %v, eager %v", it, losses["fused"], losses["eager"])
		}
		t.Logf("iteration %d: loss %v; eager %+v, unfused %+v, fused %+v", it, losses["eager"], counts["eager"], counts["unfused"], counts["fused"])
		if it == 3 {
			for _, name := range []string{"unfused", "fused"} {
				if c := counts[name]; c.ReadBacks != 1 || c.Submissions != 1 || c.Writes != 3 {
					t.Errorf("%s replay: %+v, want 1 read-back, 1 submission, 3 writes (state, target, fire masks)", name, c)
				}
			}
			if counts["fused"].Dispatches >= counts["unfused"].Dispatches {
				t.Errorf("fusion saved nothing: %d dispatches fused, %d unfused", counts["fused"].Dispatches, counts["unfused"].Dispatches)
			}
		}
	}
	models := map[string]*dlca.Model{}
	for name, e := range engines {
		m, err := e.Model()
		if err != nil {
			t.Fatal(err)
		}
		models[name] = m
	}
	if d, at := maxRelDiff(models["unfused"], models["eager"]); d != 0 {
		t.Errorf("logits after 6 iterations: unfused differs from eager by %.3g (layer %s), want bit for bit", d, at)
	}
	if d, at := maxRelDiff(models["fused"], models["eager"]); !(d <= 1e-5) {
		t.Errorf("logits after 6 iterations: fused differs from eager by %.3g relative (layer %s)", d, at)
	} else {
		t.Logf("fused logits within %.2g of eager (%s)", d, at)
	}
	if d, _ := maxRelDiff(models["eager"], s.Model); d == 0 {
		t.Error("the logits did not change: the test compares nothing")
	}
}

var _ bptt.Engine = (*Engine)(nil)
