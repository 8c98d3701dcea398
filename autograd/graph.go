package autograd

import (
	"errors"
	"fmt"
	"sync/atomic"
)

// BackwardFunc computes the gradients of an op's inputs from the gradient of
// its output. It returns one tensor per input, in input order, each of that
// input's shape; an entry may be nil when the input needs no gradient or the
// gradient is zero. It runs with recording off, so it may use any tensor op.
type BackwardFunc func(grad *Tensor) []*Tensor

// node is one recorded op application: its inputs and its backward rule.
type node struct {
	op       string
	inputs   []*Tensor
	backward BackwardFunc
	freed    bool
}

// noGradDepth counts the NoGrad scopes currently open; recording is off while
// it is positive.
var noGradDepth atomic.Int32

// NoGrad runs f with recording off: ops called inside f record no graph, so
// their results never require gradients. Scopes nest.
//
// NOTE: the switch is process-wide (Go has no goroutine-local state): while
// one goroutine is inside NoGrad, a training loop in another goroutine records
// nothing either. To run a model for inference beside training, give it
// detached parameters (Tensor.Detach) instead: ops on tensors that require no
// gradient never record, whatever the mode.
func NoGrad(f func()) {
	noGradDepth.Add(1)
	defer noGradDepth.Add(-1)
	f()
}

// Recording reports whether ops currently record the graph.
func Recording() bool { return noGradDepth.Load() == 0 }

// ErrNoGradient is returned by Backward for a tensor that does not require a
// gradient: nothing it depends on was marked with SetRequiresGrad.
var ErrNoGradient = errors.New("autograd: backward on a tensor that does not require a gradient (mark a leaf with SetRequiresGrad(true), and call ops outside NoGrad)")

// ErrGraphFreed is returned by Backward when part of the graph was already
// consumed by an earlier Backward call that did not retain it.
var ErrGraphFreed = errors.New("autograd: backward through a graph that was already freed by an earlier Backward (use BackwardRetain to keep it)")

// SetRequiresGrad marks a leaf tensor as requiring a gradient and returns it.
// SetRequiresGrad panics on a non-leaf (an op result).
func (t *Tensor) SetRequiresGrad(on bool) *Tensor {
	if t.node != nil {
		panic("autograd: SetRequiresGrad on a non-leaf tensor (the result of an op); use Detach first")
	}
	t.requiresGrad = on
	return t
}

// RequiresGrad reports whether gradients flow to or through this tensor.
func (t *Tensor) RequiresGrad() bool { return t.requiresGrad }

// IsLeaf reports whether t was created directly rather than by a recorded op.
func (t *Tensor) IsLeaf() bool { return t.node == nil }

// Grad returns the gradient accumulated in a leaf by Backward, or nil.
func (t *Tensor) Grad() *Tensor { return t.grad }

// SetGrad replaces the accumulated gradient (nil clears it). Optimisers and
// gradient clipping use it; the shape must match t's.
func (t *Tensor) SetGrad(g *Tensor) {
	if g != nil && (!sameShape(g.shape, t.shape) || g.dtype != t.dtype) {
		panic(fmt.Sprintf("autograd: SetGrad: gradient %v %v for tensor %v %v", g.shape, g.dtype, t.shape, t.dtype))
	}
	t.grad = g
}

// ZeroGrad clears the accumulated gradient.
func (t *Tensor) ZeroGrad() { t.grad = nil }

// Detach returns a tensor sharing t's data but cut from the graph: it is a
// leaf that requires no gradient.
func (t *Tensor) Detach() *Tensor {
	return &Tensor{shape: t.shape, dtype: t.dtype, f32: t.f32, f64: t.f64}
}

// Record attaches a backward rule to out, the result of an op named op applied
// to inputs, when recording is on and any input requires a gradient. It
// returns out. Built-in ops and Apply use it; it is exported so that packages
// can define ops with closures when a CustomOp type would be heavier.
func Record(op string, out *Tensor, inputs []*Tensor, backward BackwardFunc) *Tensor {
	if !Recording() {
		return out
	}
	for _, in := range inputs {
		if in != nil && in.requiresGrad {
			out.requiresGrad = true
			out.node = &node{op: op, inputs: inputs, backward: backward}
			return out
		}
	}
	return out
}

// Backward computes the gradient of a scalar tensor (one element) with
// respect to every leaf it depends on that requires a gradient, adding into
// their Grad. The graph is freed afterwards.
func (t *Tensor) Backward() error {
	if t.Len() != 1 {
		return fmt.Errorf("autograd: Backward of a tensor of shape %v needs an explicit gradient: use BackwardWith", t.shape)
	}
	return t.backward(Full(t.dtype, 1, t.shape...), false)
}

// BackwardWith is Backward from a tensor of any shape, seeded with grad (the
// gradient of some scalar with respect to t). It panics if grad's shape or
// dtype differs from t's.
func (t *Tensor) BackwardWith(grad *Tensor) error {
	if !sameShape(grad.shape, t.shape) || grad.dtype != t.dtype {
		panic(fmt.Sprintf("autograd: BackwardWith: gradient %v %v for tensor %v %v", grad.shape, grad.dtype, t.shape, t.dtype))
	}
	return t.backward(grad, false)
}

// BackwardRetain is BackwardWith that keeps the graph, so Backward may be
// called through it again.
func (t *Tensor) BackwardRetain(grad *Tensor) error {
	if !sameShape(grad.shape, t.shape) || grad.dtype != t.dtype {
		panic(fmt.Sprintf("autograd: BackwardRetain: gradient %v %v for tensor %v %v", grad.shape, grad.dtype, t.shape, t.dtype))
	}
	return t.backward(grad, true)
}

func (t *Tensor) backward(seed *Tensor, retain bool) error {
	if !t.requiresGrad {
		return ErrNoGradient
	}
	order := topoOrder(t)
	for _, n := range order {
		if n.node.freed {
			return ErrGraphFreed
		}
	}
	// grads[i] is the summed gradient of order[i]; index looks tensors up
	// (never iterated, so the order stays deterministic).
	index := make(map[*Tensor]int, len(order))
	for i, n := range order {
		index[n] = i
	}
	grads := make([]*Tensor, len(order))
	accumulate := func(x, g *Tensor) {
		if g == nil || !x.requiresGrad {
			return
		}
		if !sameShape(g.shape, x.shape) {
			panic(fmt.Sprintf("autograd: backward produced a gradient of shape %v for an input of shape %v", g.shape, x.shape))
		}
		if x.node == nil { // leaf
			x.grad = addInto(x.grad, g)
			return
		}
		i := index[x]
		grads[i] = addInto(grads[i], g)
	}
	NoGrad(func() {
		if t.node == nil {
			t.grad = addInto(t.grad, seed)
			return
		}
		grads[len(order)-1] = seed.Detach()
		for i := len(order) - 1; i >= 0; i-- {
			n, g := order[i].node, grads[i]
			grads[i] = nil
			if g == nil {
				continue
			}
			in := n.backward(g)
			if len(in) != len(n.inputs) {
				panic(fmt.Sprintf("autograd: backward rule of %q returned %d gradients for %d inputs", n.op, len(in), len(n.inputs)))
			}
			for j, x := range n.inputs {
				if x != nil {
					if in[j] != nil && in[j].dtype != x.dtype {
						panic(fmt.Sprintf("autograd: backward rule of %q returned a %v gradient for a %v input", n.op, in[j].dtype, x.dtype))
					}
					accumulate(x, in[j])
				}
			}
			if !retain {
				n.freed = true
				n.backward = nil
			}
		}
	})
	return nil
}

// topoOrder lists the non-leaf tensors that root depends on, inputs before
// the ops that use them, root last. Depth-first over input slices, iterative
// so that long chains (deep BPTT unrolls) cannot overflow the stack.
func topoOrder(root *Tensor) []*Tensor {
	if root.node == nil {
		return nil
	}
	var order []*Tensor
	visited := map[*Tensor]bool{root: true}
	type frame struct {
		t    *Tensor
		next int
	}
	stack := []frame{{t: root}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.next < len(top.t.node.inputs) {
			in := top.t.node.inputs[top.next]
			top.next++
			if in != nil && in.node != nil && in.requiresGrad && !visited[in] {
				visited[in] = true
				stack = append(stack, frame{t: in})
			}
			continue
		}
		order = append(order, top.t)
		stack = stack[:len(stack)-1]
	}
	return order
}

// addInto returns acc + g, reusing acc's storage when acc is non-nil. g is
// never modified or aliased, so rules may return a tensor they also keep.
func addInto(acc, g *Tensor) *Tensor {
	if acc == nil {
		return g.Clone()
	}
	if acc.dtype == Float64 {
		for i, v := range g.f64 {
			acc.f64[i] += v
		}
	} else {
		for i, v := range g.f32 {
			acc.f32[i] += v
		}
	}
	return acc
}
