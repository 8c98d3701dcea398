package autograd

import (
	"errors"
	"fmt"
)

// BackwardFunc computes the gradients of an op's inputs from the gradient of
// its output. It returns one tensor per input, in input order, each of that
// input's shape; an entry may be nil when the input needs no gradient or the
// gradient is zero.
//
// A rule must compute with differentiable ops (the ops of this package, or
// ops that record their own rule): it is the graph of the gradient when
// Backward runs with CreateGraph, so a rule that reads raw data gives wrong
// second derivatives. (Without CreateGraph the gradient g it receives is a
// NoGrad value, so nothing it does is recorded.) Code that can only give a
// first derivative uses RecordFirstOrder instead.
type BackwardFunc func(grad *Tensor) []*Tensor

// node is one recorded op application: its inputs and its backward rule.
type node struct {
	op       string
	inputs   []*Tensor
	backward BackwardFunc
	freed    bool
	// firstOrder marks the gradient of an op whose rule is not
	// differentiable: backward through it is an error, not a silent zero.
	firstOrder bool
	// checkpoint marks a Checkpoint, whose rule adds into the Grad of the
	// tensors its function closes over, so Grad must not run it.
	checkpoint bool
}

// ErrNoGradient is returned by Backward for a tensor that does not require a
// gradient: nothing it depends on was marked with SetRequiresGrad.
var ErrNoGradient = errors.New("autograd: backward on a tensor that does not require a gradient (mark a leaf with SetRequiresGrad(true), and do not compute from NoGrad values)")

// ErrGraphFreed is returned by Backward when part of the graph was already
// consumed by an earlier Backward call that did not retain it.
var ErrGraphFreed = errors.New("autograd: backward through a graph that was already freed by an earlier Backward (use BackwardRetain or BackwardOptions.RetainGraph to keep it)")

// ErrNoSecondOrder is returned (wrapped, with the op's name) by a backward
// pass that reaches the gradient of an op whose rule is first-order only.
var ErrNoSecondOrder = errors.New("autograd: the op has no second derivative")

// NoGrad returns a view of t, sharing its storage, whose computations record
// nothing: every op with a NoGrad input returns a NoGrad result and records
// no graph, whatever its other inputs require. Use it for evaluation and for
// values computed outside training, as torch.no_grad() and
// torch.inference_mode() are used.
//
// The scope of NoGrad is the data that flows from the value, not a goroutine
// or the process: a model evaluated on x.NoGrad() in one goroutine leaves a
// training loop in another recording as before. Ops whose inputs are all
// ordinary tensors still record (for example a module's computation on its
// own parameters before it meets the input); such a graph is garbage once
// the result is dropped.
func (t *Tensor) NoGrad() *Tensor {
	v := t.view()
	v.noGrad = true
	return v
}

// IsNoGrad reports whether t is a NoGrad value (see NoGrad).
func (t *Tensor) IsNoGrad() bool { return t.noGrad }

// view returns a new tensor header over t's storage, with no graph.
func (t *Tensor) view() *Tensor {
	return &Tensor{shape: t.shape, dtype: t.dtype, f32: t.f32, f64: t.f64, dev: t.dev, store: t.store}
}

// SetRequiresGrad marks a leaf tensor as requiring a gradient and returns it.
// SetRequiresGrad panics on a non-leaf (an op result) and on a NoGrad value.
func (t *Tensor) SetRequiresGrad(on bool) *Tensor {
	if t.node != nil {
		panic("autograd: SetRequiresGrad on a non-leaf tensor (the result of an op); use Detach first")
	}
	if on && t.noGrad {
		panic("autograd: SetRequiresGrad on a NoGrad value; use Detach first")
	}
	t.requiresGrad = on
	return t
}

// RequiresGrad reports whether gradients flow to or through this tensor.
func (t *Tensor) RequiresGrad() bool { return t.requiresGrad }

// IsLeaf reports whether t was created directly rather than by a recorded op.
func (t *Tensor) IsLeaf() bool { return t.node == nil }

// RetainGrad asks Backward to keep the gradient of a non-leaf tensor in its
// Grad, as torch.Tensor.retain_grad. Leaves keep theirs anyway. It returns t.
func (t *Tensor) RetainGrad() *Tensor {
	t.retainGrad = true
	return t
}

// Grad returns the gradient accumulated by Backward in a leaf (or a tensor
// marked with RetainGrad), or nil.
func (t *Tensor) Grad() *Tensor { return t.grad }

// SetGrad replaces the accumulated gradient (nil clears it). Optimisers and
// gradient clipping use it; the shape, dtype and device must match t's.
func (t *Tensor) SetGrad(g *Tensor) {
	if g != nil && (!sameShape(g.shape, t.shape) || g.dtype != t.dtype || g.dev != t.dev) {
		panic(fmt.Sprintf("autograd: SetGrad: gradient %v %v on %v for tensor %v %v on %v", g.shape, g.dtype, g.Device(), t.shape, t.dtype, t.Device()))
	}
	t.grad = g
}

// ZeroGrad clears the accumulated gradient.
func (t *Tensor) ZeroGrad() { t.grad = nil }

// Detach returns a tensor sharing t's data but cut from the graph: it is a
// leaf that requires no gradient (and an ordinary value, even when t is
// NoGrad).
func (t *Tensor) Detach() *Tensor { return t.view() }

// Record attaches a backward rule to out, the result of an op named op applied
// to inputs, when any input requires a gradient and none is a NoGrad value.
// A NoGrad input makes out NoGrad too. It returns out. Built-in ops and Apply
// use it; it is exported so that packages can define ops with closures when
// a CustomOp type would be heavier. The rule must be differentiable (see
// BackwardFunc).
func Record(op string, out *Tensor, inputs []*Tensor, backward BackwardFunc) *Tensor {
	return record(op, out, inputs, backward, false)
}

// RecordFirstOrder is Record for a rule that computes its gradients outside
// the graph (raw loops over the data): the gradients it returns are correct,
// but a backward pass with CreateGraph marks them so that differentiating
// them again returns ErrNoSecondOrder instead of a silent zero.
func RecordFirstOrder(op string, out *Tensor, inputs []*Tensor, backward BackwardFunc) *Tensor {
	return record(op, out, inputs, func(g *Tensor) []*Tensor {
		grads := backward(g)
		for i, r := range grads {
			if r != nil {
				// The gradient depends on g and the inputs through code
				// the graph cannot see.
				grads[i] = record(op+" backward", r.view(), append([]*Tensor{g}, inputs...), nil, true)
			}
		}
		return grads
	}, false)
}

func record(op string, out *Tensor, inputs []*Tensor, backward BackwardFunc, firstOrder bool) *Tensor {
	needs := false
	for _, in := range inputs {
		if in == nil {
			continue
		}
		if in.noGrad {
			out.noGrad = true
			return out
		}
		needs = needs || in.requiresGrad
	}
	if needs {
		out.requiresGrad = true
		out.node = &node{op: op, inputs: inputs, backward: backward, firstOrder: firstOrder}
	}
	return out
}

// markNoGrad makes out NoGrad when any input is, for ops that record no rule
// (comparisons, casts of masks) so that a NoGrad computation stays NoGrad.
func markNoGrad(out *Tensor, inputs ...*Tensor) *Tensor {
	for _, in := range inputs {
		if in != nil && in.noGrad {
			out.noGrad = true
		}
	}
	return out
}
