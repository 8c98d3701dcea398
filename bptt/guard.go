package bptt

import (
	"fmt"
	"math"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/gates"
)

// NonFiniteError reports a NaN or an infinity met in training: in the loss,
// a gradient or a logit. Train stops on it before the optimiser takes the
// bad step, so the model and every checkpoint written so far stay finite.
type NonFiniteError struct {
	What  string  // "loss", "gradient" or "logit"
	Layer string  // the layer's name; empty for the loss
	Index int     // the value's index in the layer's [Groups, Out, 16] logits
	Value float64 // the offending value
}

func (e *NonFiniteError) Error() string {
	if e.Layer == "" {
		return fmt.Sprintf("the %s is %v: training diverged or its input holds a NaN; the last checkpoint (if any) is the last good state", e.What, e.Value)
	}
	n := gates.NumOps
	return fmt.Sprintf("%s %d of layer %s (gate %d, op %v) is %v: training diverged or an input holds a NaN; the last checkpoint (if any) is the last good state: resume from it with a lower learning rate or a clean input",
		e.What, e.Index, e.Layer, e.Index/n, gates.Op(e.Index%n), e.Value)
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// CheckLoss returns a *NonFiniteError if the loss is NaN or infinite.
func CheckLoss(loss float64) error {
	if !finite(loss) {
		return &NonFiniteError{What: "loss", Value: loss}
	}
	return nil
}

// CheckLogits returns a *NonFiniteError naming the first layer (in Layers
// order) with a NaN or infinite logit.
func CheckLogits(m *dlca.Model) error {
	return checkLayers(m, "logit", func(l *gates.Layer) *autograd.Tensor { return l.Logits })
}

// CheckGradients returns a *NonFiniteError naming the first layer (in Layers
// order) whose logits' gradient holds a NaN or an infinity. A layer without
// a gradient passes.
func CheckGradients(m *dlca.Model) error {
	return checkLayers(m, "gradient", func(l *gates.Layer) *autograd.Tensor { return l.Logits.Grad() })
}

func checkLayers(m *dlca.Model, what string, values func(*gates.Layer) *autograd.Tensor) error {
	for _, l := range m.Layers() {
		t := values(l)
		if t == nil {
			continue
		}
		for i := range t.Len() {
			if v := t.At(i); !finite(v) {
				return &NonFiniteError{What: what, Layer: l.Name, Index: i, Value: v}
			}
		}
	}
	return nil
}

// checkIteration is the guard of an engine's iteration between backward and
// the optimiser step: the loss first, then the gradients, which a NaN loss
// would have filled with NaNs anyway (the message then names the layer too).
func checkIteration(m *dlca.Model, loss float64) error {
	if err := CheckGradients(m); err != nil {
		if !finite(loss) {
			return fmt.Errorf("the loss is %v; %w", loss, err)
		}
		return err
	}
	return CheckLoss(loss)
}
