package bptt

import (
	"fmt"
	"math"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/gates"
)

// LayerStats describe one layer at one iteration (Run.LayerStats): how hard
// the soft loss pulls on the layer's logits and how many of its gates have
// yet to settle on an op. Like the iteration's losses they are measured on
// the model the iteration started from.
type LayerStats struct {
	Layer string `json:"layer" jsonfile:"required"` // gates.Layer.Name
	// GradNorm is the L2 norm of the soft loss's gradient with respect to
	// the layer's logits, before clipping.
	GradNorm float64 `json:"grad_norm" jsonfile:"required"`
	Gates    int     `json:"gates" jsonfile:"required"` // Groups * Out
	// Undecided counts the gates whose most probable op has a probability
	// below UndecidedBelow (gates.Layer.Confidences, as dlca gap shows
	// them): there the soft model computes with a mixture the circuit
	// does not have.
	Undecided int `json:"undecided" jsonfile:"required"`
	// NoGradient counts the gates whose logits' gradient is exactly 0 for
	// every op: gates the loss does not reach at all on this iteration's
	// batch (in the engine's arithmetic). AdamW moves them by momentum and
	// weight decay only.
	NoGradient int `json:"no_gradient" jsonfile:"required"`
}

// UndecidedBelow is the confidence under which a gate counts as undecided
// (LayerStats.Undecided).
const UndecidedBelow = 0.9

// GradientEngine is an engine that can also hand out an iteration's
// gradients, for Run.LayerStats. The CPU engine is one.
type GradientEngine interface {
	Engine
	// IterateGradients is Iterate that also returns the soft loss's
	// gradient with respect to each layer's logits (Model.Layers order,
	// each of its layer's Logits shape, the caller's to keep), taken before
	// clipping.
	IterateGradients(b *Batch) (softLoss float64, grads []*autograd.Tensor, err error)
}

// measureLayers returns the LayerStats of model m, whose layers' logits
// have the gradients grads (GradientEngine.IterateGradients).
func measureLayers(m *dlca.Model, grads []*autograd.Tensor) ([]LayerStats, error) {
	layers := m.Layers()
	if len(grads) != len(layers) {
		return nil, fmt.Errorf("bptt: the engine gave %d gradients for %d layers", len(grads), len(layers))
	}
	stats := make([]LayerStats, len(layers))
	for i, l := range layers {
		g := grads[i]
		n := l.Groups * l.Out
		if g == nil || g.Len() != n*gates.NumOps {
			return nil, fmt.Errorf("bptt: the engine's gradient of layer %s does not have the shape of its logits", l.Name)
		}
		s := LayerStats{Layer: l.Name, Gates: n}
		var sq float64
		for k := range n {
			zero := true
			for o := range gates.NumOps {
				v := g.At(k*gates.NumOps + o)
				sq += v * v
				zero = zero && v == 0
			}
			if zero {
				s.NoGradient++
			}
		}
		s.GradNorm = math.Sqrt(sq)
		for _, c := range l.Confidences() {
			if c < UndecidedBelow {
				s.Undecided++
			}
		}
		stats[i] = s
	}
	return stats, nil
}
