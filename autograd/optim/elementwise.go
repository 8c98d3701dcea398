package optim

import (
	"fmt"
	"slices"

	"github.com/dlca/dlca/autograd"
)

// The machinery that RMSprop, Adagrad, Adamax, NAdam and RAdam share: each
// is a rule that turns a parameter's gradient and named buffers into an
// update, element by element. On the CPU the rule's kernel runs in float64
// over the parameter's storage; on a device the rule is composed of
// autograd ops there (no fused kernel per optimiser), its buffers are
// replaced by the new ones, and the parameter is changed in place by the
// device's SGD kernel with learning rate 1 (p ← p - 1·Δ).

// rule is one optimiser's hyper-parameters for one group.
type rule interface {
	// learningRate is the configured lr.
	learningRate() float64
	// check returns a description of what is invalid, or "".
	check() string
	// buffers names the per-parameter buffers the rule keeps (PyTorch's
	// state names) with their initial values.
	buffers() []bufferSpec
	// plan returns step t's update (t counts from 1) at learning rate lr;
	// scalars is the parameter's scalar state (NAdam's mu_product), which
	// plan may change.
	plan(lr float64, t int, scalars map[string]float64) stepPlan
}

// bufferSpec is a buffer's PyTorch state name and its value before the
// first step.
type bufferSpec struct {
	name string
	init float64
}

// stepPlan is one parameter's update at one step: the CPU kernels (bufs in
// the order of the rule's buffers) and its composition of device ops,
// which returns Δ (p ← p - Δ) and the buffers' new values.
type stepPlan struct {
	k32    func(p, g []float32, bufs [][]float32)
	k64    func(p, g []float64, bufs [][]float64)
	device func(p, g *autograd.Tensor, bufs []*autograd.Tensor) (delta *autograd.Tensor, next []*autograd.Tensor)
}

// elementwise is an optimiser over groups of parameters, each group with
// its own rule, keeping per-parameter step counts (advanced only by a step
// that finds a gradient, as PyTorch's state[p]["step"]), buffers and
// scalars.
type elementwise[R rule] struct {
	kind    string
	groups  []ruleGroup[R]
	params  []*autograd.Tensor
	bufs    map[string]buffers
	scalars []map[string]float64 // per parameter; nil before its first step
	steps   []int
}

type ruleGroup[R rule] struct {
	rule          R
	lr, initialLR float64
	first, n      int // its parameters are params[first : first+n]
}

// newElementwise builds kind over groups of (parameters, rule). It panics
// on no groups or an invalid rule, naming kind.
func newElementwise[R rule](kind string, params [][]*autograd.Tensor, rules []R) elementwise[R] {
	if len(rules) == 0 {
		panic(fmt.Sprintf("optim: New%sGroups: no parameter groups", kind))
	}
	o := elementwise[R]{kind: kind, bufs: map[string]buffers{}}
	for i, r := range rules {
		if msg := r.check(); msg != "" {
			panic(fmt.Sprintf("optim: invalid %s config %+v: %s", kind, r, msg))
		}
		o.groups = append(o.groups, ruleGroup[R]{rule: r, lr: r.learningRate(), initialLR: r.learningRate(), first: len(o.params), n: len(params[i])})
		o.params = append(o.params, params[i]...)
		for _, b := range r.buffers() {
			o.bufs[b.name] = nil
		}
	}
	n := len(o.params)
	for name := range o.bufs {
		o.bufs[name] = make(buffers, n)
	}
	o.scalars, o.steps = make([]map[string]float64, n), make([]int, n)
	return o
}

// Step updates every parameter that has a gradient, advancing its step
// count; parameters on a device are updated there.
func (o *elementwise[R]) Step() error {
	for _, gr := range o.groups {
		specs := gr.rule.buffers()
		for i := gr.first; i < gr.first+gr.n; i++ {
			p := o.params[i]
			g := p.Grad()
			if g == nil {
				continue
			}
			o.steps[i]++
			if o.scalars[i] == nil {
				o.scalars[i] = map[string]float64{}
			}
			plan := gr.rule.plan(gr.lr, o.steps[i], o.scalars[i])
			bufs := make([]*autograd.Tensor, len(specs))
			for j, s := range specs {
				if o.bufs[s.name][i] == nil {
					o.bufs[s.name][i] = filledLike(p, s.init)
				}
				bufs[j] = o.bufs[s.name][i]
			}
			if k := kernelsOf(o.kind, p); k != nil {
				delta, next := plan.device(p.Detach(), g.Detach(), bufs)
				for j, s := range specs {
					o.bufs[s.name][i] = next[j]
				}
				k.SGDStep(p, delta, nil, SGDConfig{LR: 1}, false)
				continue
			}
			apply(p, g, bufs, plan.k32, plan.k64)
		}
	}
	return syncDevices(o.params)
}

// filledLike returns a tensor of p's shape, dtype and device holding v.
func filledLike(p *autograd.Tensor, v float64) *autograd.Tensor {
	if v == 0 {
		return autograd.ZerosLike(p)
	}
	t := autograd.Full(p.DType(), v, p.Shape()...)
	if dev := p.Device(); dev != autograd.CPU {
		moved, err := t.To(dev)
		if err != nil {
			panic(fmt.Sprintf("optim: creating a state buffer on %v: %v", dev, err))
		}
		return moved
	}
	return t
}

// ZeroGrad clears the parameters' gradients.
func (o *elementwise[R]) ZeroGrad() { ZeroGrad(o.params) }

// NumGroups returns the number of parameter groups.
func (o *elementwise[R]) NumGroups() int { return len(o.groups) }

// GroupLR returns group i's learning rate.
func (o *elementwise[R]) GroupLR(i int) float64 { return o.groups[i].lr }

// SetGroupLR sets group i's learning rate for the next Step.
func (o *elementwise[R]) SetGroupLR(i int, lr float64) { o.groups[i].lr = lr }

// InitialLR returns group i's learning rate at construction.
func (o *elementwise[R]) InitialLR(i int) float64 { return o.groups[i].initialLR }

// State returns the per-parameter step counts, the learning rates, the
// buffers under PyTorch's state names, and per-parameter scalars.
func (o *elementwise[R]) State() State {
	s := State{Kind: o.kind, ParamSteps: slices.Clone(o.steps), Buffers: map[string][][]float64{}}
	for _, n := range o.steps {
		s.Steps = max(s.Steps, n)
	}
	for name, b := range o.bufs {
		s.Buffers[name] = b.save()
	}
	for i, sc := range o.scalars {
		for name, v := range sc {
			if s.ParamScalars == nil {
				s.ParamScalars = map[string][]float64{}
			}
			if s.ParamScalars[name] == nil {
				s.ParamScalars[name] = make([]float64, len(o.params))
			}
			s.ParamScalars[name][i] = v
		}
	}
	saveLRs(&s, o)
	return s
}

// LoadState restores a State from State. It returns an error, changing
// nothing, when s was saved by another kind of optimiser or for other
// parameters, or lacks a buffer the optimiser keeps.
func (o *elementwise[R]) LoadState(s State) error {
	if err := checkKind(o.kind, s); err != nil {
		return err
	}
	if len(s.ParamSteps) != len(o.params) {
		return fmt.Errorf("optim: %s state has step counts for %d parameters; the optimiser has %d (was it saved for another model?)", o.kind, len(s.ParamSteps), len(o.params))
	}
	loaded := map[string]buffers{}
	for name := range o.bufs {
		saved, ok := s.Buffers[name]
		if !ok {
			return fmt.Errorf("optim: %s state has no buffer %q", o.kind, name)
		}
		b := make(buffers, len(o.params))
		if err := b.load(o.kind, name, saved, o.params); err != nil {
			return err
		}
		loaded[name] = b
	}
	for name := range s.Buffers {
		if _, ok := o.bufs[name]; !ok {
			return fmt.Errorf("optim: %s state has a buffer %q this optimiser does not keep (was it saved with other options?)", o.kind, name)
		}
	}
	scalars := make([]map[string]float64, len(o.params))
	for i, k := range s.ParamSteps {
		if k < 0 {
			return fmt.Errorf("optim: %s state has a negative step count %d for parameter %d", o.kind, k, i)
		}
		if k == 0 {
			continue
		}
		scalars[i] = map[string]float64{}
		for name, vs := range s.ParamScalars {
			if len(vs) != len(o.params) {
				return fmt.Errorf("optim: %s state scalar %q has %d entries for %d parameters", o.kind, name, len(vs), len(o.params))
			}
			scalars[i][name] = vs[i]
		}
	}
	if err := loadLRs(o.kind, s, o); err != nil {
		return err
	}
	o.bufs, o.scalars, o.steps = loaded, scalars, slices.Clone(s.ParamSteps)
	return nil
}

// groupsOf splits groups into their parameters and rules.
func groupsOf[G any, R rule](groups []G, split func(G) ([]*autograd.Tensor, R)) ([][]*autograd.Tensor, []R) {
	ps, rs := make([][]*autograd.Tensor, len(groups)), make([]R, len(groups))
	for i, g := range groups {
		ps[i], rs[i] = split(g)
	}
	return ps, rs
}

// withDecay returns g + wd·p, PyTorch's L2 weight decay through the
// gradient, composed of device ops (g itself when wd is 0).
func withDecay(p, g *autograd.Tensor, wd float64) *autograd.Tensor {
	if wd == 0 {
		return g
	}
	return autograd.Add(g, autograd.MulScalar(p, wd))
}

// ema returns a·b + (1-a)·x: an exponential moving average step of b
// towards x, composed of device ops.
func ema(b, x *autograd.Tensor, a float64) *autograd.Tensor {
	return autograd.Add(autograd.MulScalar(b, a), autograd.MulScalar(x, 1-a))
}
