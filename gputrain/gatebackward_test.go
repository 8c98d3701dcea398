package gputrain

import (
	"testing"

	"github.com/dlca/dlca/dlca"
)

// TestOneDispatchGateBackwardSameBits trains two unfused captured engines on
// the same batches, one recording each gate layer's backward pass as two
// dispatches (gate_backward_input, gate_sums: lavapipe's default) and one
// as one (gate_backward, a hardware GPU's default): the losses and the
// logits are the same bits, and a replay saves one dispatch per layer and
// step, every application of a layer wanting both its input's and its
// coefficients' gradient.
func TestOneDispatchGateBackwardSameBits(t *testing.T) {
	dev := device(t)
	s, src := trained(t, "checkerboard", 4, 4, 2, 10)
	s.Steps = 2
	var losses [2][]float64
	var dispatches [2]int
	var models [2]*dlca.Model
	for i, one := range []bool{false, true} {
		dev.SetOneDispatchGateBackward(one)
		e, err := New(dev, s, Options{Unfused: true})
		if err != nil {
			t.Fatal(err)
		}
		for it := 1; it <= 3; it++ { // warm-up, capture, replay
			loss, err := e.Iterate(batch(src, uint64(it)))
			if err != nil {
				t.Fatal(err)
			}
			losses[i] = append(losses[i], loss)
		}
		dispatches[i] = e.LastCounts().Dispatches
		if models[i], err = e.Model(); err != nil {
			t.Fatal(err)
		}
		e.Close()
	}
	dev.SetOneDispatchGateBackward(!dev.Device().IsSoftware()) // the default again
	for it := range losses[0] {
		if losses[0][it] != losses[1][it] {
			t.Errorf("iteration %d: loss %v with one dispatch per backward pass, %v with two", it+1, losses[1][it], losses[0][it])
		}
	}
	if d, at := maxRelDiff(models[0], models[1]); d != 0 {
		t.Errorf("logits differ by %.3g (layer %s), want the same bits", d, at)
	}
	if want := len(s.Model.Layers()) * s.Steps; dispatches[0]-dispatches[1] != want {
		t.Errorf("a replay is %d dispatches with two per backward pass, %d with one: want %d fewer (%d layers x %d steps)",
			dispatches[0], dispatches[1], want, len(s.Model.Layers()), s.Steps)
	}
	t.Logf("replay: %d dispatches with two kernels per backward pass, %d with one", dispatches[0], dispatches[1])
}
