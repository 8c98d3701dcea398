package gputrain

import (
	"testing"
)

// TestRecomputeOnDevice trains with gradient checkpointing over time
// (Setup.Recompute 2 of 5 steps: autograd.Checkpoint on the device, inside
// the captured step) and without, 3 iterations each (warm-up, capture,
// replay), asynchronous: the same losses and logits bit for bit (autograd's
// Checkpoint promises the plain gradients exactly; both engines unfused).
func TestRecomputeOnDevice(t *testing.T) {
	dev := device(t)
	s, src := trained(t, "checkerboard", 4, 4, 0, 0)
	s.Steps, s.Async = 5, true
	plain, err := New(dev, s, Options{Unfused: true})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	s.Recompute = 2
	recomputed, err := New(dev, s, Options{Unfused: true})
	if err != nil {
		t.Fatal(err)
	}
	defer recomputed.Close()
	for it := 1; it <= 3; it++ {
		b := batch(src, uint64(it))
		lp, err := plain.Iterate(b)
		if err != nil {
			t.Fatal(err)
		}
		dp := plain.LastCounts().Dispatches
		lr, err := recomputed.Iterate(b)
		if err != nil {
			t.Fatal(err)
		}
		dr := recomputed.LastCounts().Dispatches
		if lp != lr {
			t.Errorf("iteration %d: loss %v recomputed, %v plain", it, lr, lp)
		}
		if it == 3 {
			t.Logf("replay: %d dispatches recomputed, %d plain", dr, dp)
			if dr <= dp {
				t.Errorf("the recomputed step dispatches %d kernels, the plain one %d: nothing was recomputed", dr, dp)
			}
		}
	}
	mp, err := plain.Model()
	if err != nil {
		t.Fatal(err)
	}
	mr, err := recomputed.Model()
	if err != nil {
		t.Fatal(err)
	}
	if d, at := maxRelDiff(mr, mp); d != 0 {
		t.Errorf("logits after 3 iterations: recomputed differs from plain by %.3g (layer %s)", d, at)
	}
}
