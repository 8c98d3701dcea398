package dlca

import (
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/gates"
)

// straightThroughLayer is the straight-through estimator as autograd
// writes it: y = soft(x) + detach(hard(x) - soft(x)), where hard is the
// layer with every gate one-hot on its argmax op. Its value is hard(x), its
// gradient soft's at x.
func straightThroughLayer(l *gates.Layer, x *autograd.Tensor) *autograd.Tensor {
	soft := l.ForwardReference(x)
	h := gates.NewLayer(l.Name, l.In, l.Wiring, l.Groups, gates.Init{}, l.Logits.DType(), nil)
	for k, o := range l.HardOps() {
		h.Logits.SetAt(k*gates.NumOps+int(o), 1000) // softmax exactly one-hot in float64
	}
	hard := h.ForwardReference(x.Detach())
	return autograd.Add(soft, autograd.Sub(hard, soft).Detach())
}

// A straight-through rollout computes the circuit's values forward and the
// soft model's gradient at them backward: the same final state and
// gradients as the reference rollout with straightThroughLayer, and from
// bits exactly the circuit's rollout, which the plain rollout is not.
func TestStraightThroughRollout(t *testing.T) {
	for _, b := range []circuit.Boundary{circuit.Zero, circuit.Periodic} {
		t.Run(b.String(), func(t *testing.T) {
			m := tinyModel(t, tinyConfig(b), 13)
			assertMatchesReference(t, m, RolloutOptions{StraightThrough: true}, straightThroughLayer)

			bits := BitsOf(randomState(autograd.Float64, 7, 2, 4, 4, 2))
			circ := m.Circuit().Rollout(bits, 3, HardOptions{}).Tensor(autograd.Float64)
			init := bits.Tensor(autograd.Float64)
			assertClose(t, "straight-through rollout from bits", m.Rollout(init, 3, RolloutOptions{StraightThrough: true}), circ, 0)
			soft := m.Rollout(init, 3, RolloutOptions{})
			differ := false
			for i := range soft.Len() {
				differ = differ || soft.At(i) != circ.At(i)
			}
			if !differ {
				t.Fatal("the soft rollout equals the circuit's: the model is too confident for the test to tell them apart")
			}
		})
	}
}
