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

// LRSetter is an optimiser whose learning rate a schedule can change.
type LRSetter interface {
	LR() float64
	SetLR(lr float64)
}

// State is an optimiser's saveable state: its kind, the number of steps
// taken, the current learning rate, and named per-parameter buffers
// (Buffers[name][i] belongs to parameter i; nil before the first step).
// Float32 values convert to float64 and back exactly.
type State struct {
	Kind    string                 `json:"kind"`
	Steps   int                    `json:"steps"`
	LR      float64                `json:"lr"`
	Buffers map[string][][]float64 `json:"buffers"`
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

func (b buffers) save() [][]float64 {
	out := make([][]float64, len(b))
	for i, t := range b {
		if t != nil {
			out[i] = t.Float64s()
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
		t := autograd.ZerosLike(params[i])
		for j, v := range data {
			t.SetAt(j, v)
		}
		b[i] = t
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
