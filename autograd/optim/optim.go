package optim

import (
	"fmt"

	"github.com/dlca/dlca/autograd"
)

// Optimizer updates parameters from their gradients.
type Optimizer interface {
	// Step applies one update to every parameter that has a gradient.
	Step() error
	// ZeroGrad clears the gradients of all parameters.
	ZeroGrad()
}

// LRSetter is an optimiser whose learning rates a schedule can set: one
// per parameter group, as torch.optim's param_groups[i]["lr"].
type LRSetter interface {
	NumGroups() int
	GroupLR(group int) float64
	SetGroupLR(group int, lr float64)
	// InitialLR is the group's learning rate when the optimiser was built
	// (PyTorch's initial_lr), from which schedules scale.
	InitialLR(group int) float64
}

// MomentumSetter is an optimiser whose momentum a schedule can set (SGD's
// momentum, Adam's beta1), as OneCycleLR's cycle_momentum does.
type MomentumSetter interface {
	SetGroupMomentum(group int, momentum float64)
}

// State is an optimiser's saveable state: its kind, step counts, learning
// rates, and named per-parameter buffers (Buffers[name][i] belongs to
// parameter i, counting the groups' parameters in order; nil before the
// parameter's first step). Float32 values convert to float64 and back
// exactly. The fields tagged `jsonfile:"required"` must be in a checkpoint
// file that holds a State (the tag is for the dlca project's strict reader).
type State struct {
	Kind string `json:"kind" jsonfile:"required"`
	// Steps is the number of Steps taken (SGD), or for Adam the largest
	// per-parameter count. Adam states written before step counts were per
	// parameter hold only this one count.
	Steps int `json:"steps" jsonfile:"required"`
	// ParamSteps is Adam's step count of each parameter (PyTorch's
	// state[p]["step"]).
	ParamSteps []int `json:"param_steps,omitempty"`
	// LR is the first group's learning rate; GroupLRs holds every group's
	// when there is more than one.
	LR       float64                `json:"lr" jsonfile:"required"`
	GroupLRs []float64              `json:"group_lrs,omitempty"`
	Buffers  map[string][][]float64 `json:"buffers" jsonfile:"required"`
	// ParamScalars holds per-parameter numbers other than the step count
	// (NAdam's mu_product), ParamScalars[name][i] for parameter i.
	ParamScalars map[string][]float64 `json:"param_scalars,omitempty"`
}

// saveLRs stores o's learning rates in s.
func saveLRs(s *State, o LRSetter) {
	s.LR = o.GroupLR(0)
	if o.NumGroups() > 1 {
		for i := range o.NumGroups() {
			s.GroupLRs = append(s.GroupLRs, o.GroupLR(i))
		}
	}
}

// loadLRs sets o's learning rates from s, or returns an error when s holds
// another number of groups.
func loadLRs(kind string, s State, o LRSetter) error {
	n := o.NumGroups()
	switch {
	case n == 1 && len(s.GroupLRs) <= 1:
		o.SetGroupLR(0, s.LR)
	case len(s.GroupLRs) == n:
		for i, lr := range s.GroupLRs {
			o.SetGroupLR(i, lr)
		}
	default:
		return fmt.Errorf("optim: %s state has learning rates for %d parameter groups; the optimiser has %d", kind, max(len(s.GroupLRs), 1), n)
	}
	return nil
}

// ZeroGrad clears the gradient of every parameter.
func ZeroGrad(params []*autograd.Tensor) {
	for _, p := range params {
		p.ZeroGrad()
	}
}

// buffers are per-parameter tensors of the parameters' shapes and dtypes,
// created on first use.
type buffers []*autograd.Tensor

func (b buffers) get(i int, p *autograd.Tensor) *autograd.Tensor {
	if b[i] == nil {
		b[i] = autograd.ZerosLike(p)
	}
	return b[i]
}

// save returns the buffers' values, read back from their devices. It
// panics when a device fails to give them back (State has no error result,
// and a state silently missing a buffer would load as damaged).
func (b buffers) save() [][]float64 {
	out := make([][]float64, len(b))
	for i, t := range b {
		if t != nil {
			c, err := t.To(autograd.CPU)
			if err != nil {
				panic(fmt.Sprintf("optim: reading the state of parameter %d back from %v: %v", i, t.Device(), err))
			}
			out[i] = c.Float64s()
		}
	}
	return out
}

func (b buffers) load(kind, name string, saved [][]float64, params []*autograd.Tensor) error {
	if len(saved) != len(params) {
		return fmt.Errorf("optim: %s state buffer %q has %d entries for %d parameters (was it saved for another model?)", kind, name, len(saved), len(params))
	}
	for i, data := range saved {
		if data == nil {
			b[i] = nil
			continue
		}
		if len(data) != params[i].Len() {
			return fmt.Errorf("optim: %s state buffer %q for parameter %d has %d values; the parameter has %d", kind, name, i, len(data), params[i].Len())
		}
		t := autograd.Zeros(params[i].DType(), params[i].Shape()...)
		for j, v := range data {
			t.SetAt(j, v)
		}
		dev, err := t.To(params[i].Device())
		if err != nil {
			return fmt.Errorf("optim: %s state buffer %q for parameter %d: %w", kind, name, i, err)
		}
		b[i] = dev
	}
	return nil
}

func checkKind(want string, s State) error {
	if s.Kind != want {
		return fmt.Errorf("optim: cannot load %q optimiser state into %s", s.Kind, want)
	}
	if s.Steps < 0 {
		return fmt.Errorf("optim: %s state has a negative step count %d", want, s.Steps)
	}
	return nil
}

// apply runs kernel on the float32 or float64 storage of a parameter, its
// gradient and its buffers, split over the CPUs for large parameters (each
// element's update is independent, so the split does not change results).
func apply(p, g *autograd.Tensor, bufs []*autograd.Tensor,
	k32 func(p, g []float32, bufs [][]float32), k64 func(p, g []float64, bufs [][]float64)) {
	if p.DType() == autograd.Float64 {
		applySplit(p.Data64(), g.Data64(), bufs, (*autograd.Tensor).Data64, k64)
		return
	}
	applySplit(p.Data32(), g.Data32(), bufs, (*autograd.Tensor).Data32, k32)
}

func applySplit[T autograd.Float](p, g []T, bufs []*autograd.Tensor, data func(*autograd.Tensor) []T, kernel func(p, g []T, bufs [][]T)) {
	all := make([][]T, len(bufs))
	for i, t := range bufs {
		all[i] = data(t)
	}
	autograd.ParallelFor(len(p), func(lo, hi int) {
		part := make([][]T, len(all))
		for i, b := range all {
			part[i] = b[lo:hi]
		}
		kernel(p[lo:hi], g[lo:hi], part)
	})
}
