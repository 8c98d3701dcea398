package autograd

import "fmt"

// BackwardOptions are the options of a backward pass, as the arguments of
// torch.Tensor.backward and torch.autograd.grad.
type BackwardOptions struct {
	// Grad seeds the pass: the gradient of some scalar with respect to the
	// tensor backward starts from, of that tensor's shape and dtype. Nil
	// means 1, allowed for a tensor of one element.
	Grad *Tensor
	// RetainGraph keeps the graph, so that backward may run through it
	// again (retain_graph).
	RetainGraph bool
	// CreateGraph records the backward pass itself (create_graph): the
	// gradients are differentiable tensors, and gradients of gradients can
	// be taken from them. It implies RetainGraph, as in PyTorch.
	CreateGraph bool
}

// Backward computes the gradient of a scalar tensor (one element) with
// respect to every leaf it depends on that requires a gradient, adding into
// their Grad. The graph is freed afterwards.
func (t *Tensor) Backward() error { return t.BackwardWithOptions(BackwardOptions{}) }

// BackwardWith is Backward from a tensor of any shape, seeded with grad (the
// gradient of some scalar with respect to t). It panics if grad's shape or
// dtype differs from t's.
func (t *Tensor) BackwardWith(grad *Tensor) error {
	return t.BackwardWithOptions(BackwardOptions{Grad: grad})
}

// BackwardRetain is BackwardWith that keeps the graph, so Backward may be
// called through it again.
func (t *Tensor) BackwardRetain(grad *Tensor) error {
	return t.BackwardWithOptions(BackwardOptions{Grad: grad, RetainGraph: true})
}

// BackwardWithOptions is Backward with every option of
// torch.Tensor.backward: a seed of any shape, a retained graph, a recorded
// (differentiable) backward pass. Gradients add into the Grad of every leaf
// that requires one and of every tensor marked with RetainGrad; with
// CreateGraph those gradients are themselves recorded. On a device other
// than the CPU the pass is recorded there, and the device's error, if it
// has failed, is returned (see Device).
func (t *Tensor) BackwardWithOptions(o BackwardOptions) error {
	seed, err := seedOf("Backward", t, o.Grad)
	if err != nil {
		return err
	}
	if _, err = runBackward(t, seed, nil, o); err != nil {
		return err
	}
	if t.dev != nil {
		return t.dev.Err()
	}
	return nil
}

// Grad returns the gradients of out with respect to each of inputs, as
// torch.autograd.grad(out, inputs, grad_outputs=o.Grad, ...,
// materialize_grads=True): the Grad fields of the graph's leaves are left
// untouched, and an input out does not depend on gets zeros. With
// o.CreateGraph the gradients are recorded, so they can be differentiated
// again (a gradient penalty, a Hessian-vector product). Every input must
// require a gradient.
func Grad(out *Tensor, inputs []*Tensor, o BackwardOptions) ([]*Tensor, error) {
	for i, x := range inputs {
		if x == nil || !x.requiresGrad {
			return nil, fmt.Errorf("autograd: Grad: input %d does not require a gradient (mark it with SetRequiresGrad(true))", i)
		}
	}
	seed, err := seedOf("Grad", out, o.Grad)
	if err != nil {
		return nil, err
	}
	grads, err := runBackward(out, seed, inputs, o)
	if err != nil {
		return nil, err
	}
	for i, g := range grads {
		if g == nil {
			grads[i] = ZerosLike(inputs[i])
		}
	}
	return grads, nil
}

// seedOf checks the seed of a backward pass from t, or makes the implicit 1.
func seedOf(op string, t, grad *Tensor) (*Tensor, error) {
	if !t.requiresGrad {
		return nil, ErrNoGradient
	}
	if grad == nil {
		if t.Len() != 1 {
			return nil, fmt.Errorf("autograd: %s of a tensor of shape %v needs an explicit gradient (BackwardWith, or BackwardOptions.Grad)", op, t.shape)
		}
		if t.dev != nil {
			return fullOn(t.dev, t.dtype, 1, t.shape), nil
		}
		return Full(t.dtype, 1, t.shape...), nil
	}
	if !sameShape(grad.shape, t.shape) || grad.dtype != t.dtype || grad.dev != t.dev {
		panic(fmt.Sprintf("autograd: %s: gradient %v %v on %v for tensor %v %v on %v", op, grad.shape, grad.dtype, grad.Device(), t.shape, t.dtype, t.Device()))
	}
	return grad, nil
}

// runBackward propagates seed from root through the recorded graph. With
// inputs nil it adds into the Grad of leaves (and of RetainGrad tensors);
// otherwise it stops at inputs, touches no Grad, and returns their
// gradients (nil where root does not depend on one).
func runBackward(root, seed *Tensor, inputs []*Tensor, o BackwardOptions) ([]*Tensor, error) {
	p := &pass{create: o.CreateGraph, toLeaves: inputs == nil, stops: make(map[*Tensor]int, len(inputs))}
	retain := o.RetainGraph || o.CreateGraph
	for i, x := range inputs {
		p.stops[x] = i
	}
	p.result = make([]*Tensor, len(inputs))
	// Without CreateGraph the gradient is a NoGrad value, so that nothing
	// a rule computes from it is recorded.
	if !p.create {
		seed = seed.NoGrad()
	}
	if root.node == nil {
		p.accumulate(root, seed)
		return p.results(), nil
	}
	order := topoOrder(root, p.stops)
	for _, n := range order {
		if n.node.freed {
			return nil, ErrGraphFreed
		}
	}
	p.index = make(map[*Tensor]int, len(order))
	p.grads = make([]*Tensor, len(order))
	p.borrowed = make([]bool, len(order))
	needed := p.needed(order)
	p.grads[len(order)-1] = seed
	for i := len(order) - 1; i >= 0; i-- {
		x, g := order[i], p.grads[i]
		p.grads[i] = nil
		if g == nil {
			continue
		}
		if j, ok := p.stops[x]; ok {
			if p.borrowed[i] {
				g = g.Clone()
			}
			p.result[j] = g // a non-leaf input: its gradient stops here
			continue
		}
		if x.retainGrad && p.toLeaves {
			p.store(x, g)
		}
		n := x.node
		if !needed[i] {
			continue
		}
		if n.firstOrder {
			return nil, fmt.Errorf("%w: %s (differentiate its gradient once only, or give it a differentiable rule)", ErrNoSecondOrder, n.op)
		}
		if n.checkpoint && !p.toLeaves {
			return nil, fmt.Errorf("autograd: Grad through a Checkpoint: its second run adds into the Grad of the tensors its function uses; use Backward")
		}
		if !p.create {
			g = g.NoGrad() // a sum is a fresh, ordinary tensor
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
				p.accumulate(x, in[j])
			}
		}
		if !retain {
			n.freed = true
			n.backward = nil
		}
	}
	return p.results(), nil
}

// results returns Grad's gradients; without CreateGraph each is an ordinary
// tensor of its own (never a NoGrad view of the caller's seed).
func (p *pass) results() []*Tensor {
	for i, r := range p.result {
		if r != nil && r.noGrad {
			p.result[i] = r.Clone()
		}
	}
	return p.result
}

// pass is the state of one backward pass.
type pass struct {
	create   bool            // record the pass (CreateGraph)
	toLeaves bool            // add into Grad fields (Backward), not result (Grad)
	stops    map[*Tensor]int // Grad's inputs, by position
	result   []*Tensor       // Grad's gradients
	index    map[*Tensor]int // position of a non-leaf in the order
	grads    []*Tensor       // summed gradient of each non-leaf so far
	borrowed []bool          // grads[i] is a rule's result, not a copy of its own
}

// needed marks the tensors of order whose gradient reaches a wanted tensor
// (every one when gradients go to the leaves), so that Grad runs no rule in
// vain. It also fills p.index.
func (p *pass) needed(order []*Tensor) []bool {
	need := make([]bool, len(order))
	for i, t := range order {
		p.index[t] = i
		_, stop := p.stops[t]
		need[i] = p.toLeaves || stop
		for _, in := range t.node.inputs {
			if need[i] {
				break
			}
			if in == nil {
				continue
			}
			_, stop := p.stops[in]
			j, ok := p.index[in]
			need[i] = (ok && need[j]) || (in.node == nil && stop)
		}
	}
	return need
}

// accumulate adds the gradient g of x where it belongs: Grad's result for a
// wanted input, the running sum of a non-leaf, or a leaf's Grad.
func (p *pass) accumulate(x, g *Tensor) {
	if g == nil || !x.requiresGrad {
		return
	}
	if !sameShape(g.shape, x.shape) {
		panic(fmt.Sprintf("autograd: backward produced a gradient of shape %v for an input of shape %v", g.shape, x.shape))
	}
	if g.dev != x.dev {
		if x.dev != nil || len(x.shape) != 0 {
			panic(fmt.Sprintf("autograd: backward produced a gradient on %v for an input on %v", g.Device(), x.Device()))
		}
		// A 0-D CPU tensor used as a constant in an op on a device (see
		// deviceOf) gets its gradient back on the CPU.
		g = mustTo(g, CPU)
	}
	switch j, stop := p.stops[x]; {
	case x.node != nil:
		i := p.index[x]
		if !p.create && p.grads[i] == nil {
			// The first gradient of a non-leaf is only read (by its rule),
			// so it is kept as it is, unless a second one comes to be
			// added: a copy per node saved.
			p.grads[i], p.borrowed[i] = g, true
			return
		}
		if p.borrowed[i] {
			p.grads[i], p.borrowed[i] = p.grads[i].Clone(), false
		}
		p.grads[i] = p.sum(p.grads[i], g)
	case stop:
		p.result[j] = p.sum(p.result[j], g)
	case p.toLeaves:
		p.store(x, g)
	}
}

// sum returns acc + g: recorded with CreateGraph; otherwise in place in acc,
// which is then a fresh copy never shared with a rule.
func (p *pass) sum(acc, g *Tensor) *Tensor {
	if !p.create {
		return addInto(acc, g)
	}
	if acc == nil {
		return g
	}
	return Add(acc, g)
}

// store adds g into x's Grad. The stored gradient is never a tensor a rule
// or the caller keeps, and never NoGrad.
func (p *pass) store(x, g *Tensor) {
	if !p.create {
		acc := x.grad
		if acc != nil && acc.requiresGrad {
			// Recorded by an earlier CreateGraph pass: other tensors may
			// depend on it, so add out of place. PyTorch 1.13 adds in
			// place here (its version counter catches a graph that needs
			// the old value); this package has no version counter, so it
			// keeps the recorded gradient's value instead.
			acc = acc.Clone()
		}
		x.grad = addInto(acc, g)
		x.grad.noGrad = false
		return
	}
	if x.grad == nil {
		x.grad = cloneRecorded(g)
	} else {
		x.grad = Add(x.grad, g)
	}
}

// cloneRecorded returns a copy of t that is differentiable like t itself.
func cloneRecorded(t *Tensor) *Tensor {
	return Record("Clone", t.Clone(), []*Tensor{t}, func(g *Tensor) []*Tensor { return []*Tensor{g} })
}

// topoOrder lists the non-leaf tensors that root depends on, inputs before
// the ops that use them, root last, going no further back than the tensors
// in stops. Depth-first over input slices, iterative so that long chains
// (deep BPTT unrolls) cannot overflow the stack.
func topoOrder(root *Tensor, stops map[*Tensor]int) []*Tensor {
	var order []*Tensor
	visited := map[*Tensor]bool{root: true}
	type frame struct {
		t    *Tensor
		next int
	}
	stack := []frame{{t: root}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		_, stop := stops[top.t]
		if !stop && top.next < len(top.t.node.inputs) {
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
	if acc.dev != nil {
		return arith("Add", acc, g, opAdd) // NOTE: out of place; the pool recycles acc
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
