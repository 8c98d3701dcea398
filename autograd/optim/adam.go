package optim

import (
	"fmt"
	"math"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/internal/fused"
)

// AdamConfig holds the hyper-parameters of Adam and AdamW, as the keyword
// arguments of torch.optim.Adam and torch.optim.AdamW (lr, betas, eps,
// weight_decay, amsgrad). Every field is used exactly as given: zero means
// zero (beta1 = 0, beta2 = 0 and eps = 0 are all legal), so start from
// DefaultAdam or DefaultAdamW to get PyTorch's defaults and change what
// differs.
type AdamConfig struct {
	LR          float64
	Beta1       float64
	Beta2       float64
	Eps         float64
	WeightDecay float64
	// AMSGrad divides by the running maximum of the second moment
	// (PyTorch's max_exp_avg_sq) instead of the second moment itself.
	AMSGrad bool
}

// AdamWConfig holds AdamW's hyper-parameters; see AdamConfig.
type AdamWConfig = AdamConfig

// DefaultAdam returns torch.optim.Adam's defaults: lr 1e-3, betas (0.9,
// 0.999), eps 1e-8, no weight decay, no AMSGrad.
func DefaultAdam() AdamConfig {
	return AdamConfig{LR: 1e-3, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8}
}

// DefaultAdamW returns torch.optim.AdamW's defaults: DefaultAdam's with
// weight decay 1e-2.
func DefaultAdamW() AdamWConfig {
	c := DefaultAdam()
	c.WeightDecay = 1e-2
	return c
}

// AdamGroup is a parameter group with its own hyper-parameters, as one
// dict of torch.optim.Adam's params argument.
type AdamGroup struct {
	Params []*autograd.Tensor
	AdamConfig
}

// Adam is the Adam optimiser (Kingma & Ba), as torch.optim.Adam and
// torch.optim.AdamW. Each parameter has its own step count t, advanced
// only by a Step that finds a gradient on it (PyTorch's state[p]["step"]),
// and, with c₁ = 1-β₁ᵗ and c₂ = 1-β₂ᵗ, such a Step does:
//
//	Adam:  g ← g + wd·p               (L2 decay through the gradient)
//	AdamW: p ← p·(1 - lr·wd)          (decoupled decay)
//	m ← β₁·m + (1-β₁)·g
//	v ← β₂·v + (1-β₂)·g²
//	v̂ ← max(v̂, v) with AMSGrad, else v
//	p ← p - (lr/c₁)·m / (√v̂/√c₂ + ε)
//
// A parameter without a gradient is left alone entirely, weight decay
// included.
type Adam struct {
	decoupled bool
	groups    []adamGroup
	params    []*autograd.Tensor // every group's, in order: the index of State's per-parameter entries
	m, v      buffers
	maxV      buffers // AMSGrad's running maximum of v
	steps     []int   // per parameter
}

// adamGroup is a group with its running hyper-parameters and the learning
// rate it was built with (PyTorch's initial_lr, which schedules scale).
type adamGroup struct {
	cfg       AdamConfig
	initialLR float64
	first, n  int // its parameters are params[first : first+n]
}

// NewAdam returns Adam over params (weight decay added to the gradient). It
// panics on a negative learning rate, eps or weight decay, or betas outside
// [0, 1), as torch.optim.Adam raises.
func NewAdam(params []*autograd.Tensor, cfg AdamConfig) *Adam {
	return NewAdamGroups([]AdamGroup{{Params: params, AdamConfig: cfg}})
}

// NewAdamW returns AdamW over params: Adam with decoupled weight decay. It
// panics like NewAdam.
func NewAdamW(params []*autograd.Tensor, cfg AdamWConfig) *Adam {
	return NewAdamWGroups([]AdamGroup{{Params: params, AdamConfig: cfg}})
}

// NewAdamGroups returns Adam over parameter groups, each with its own
// hyper-parameters, as torch.optim.Adam([{"params": ..., "lr": ...}, ...]).
// It panics like NewAdam, and on no groups.
func NewAdamGroups(groups []AdamGroup) *Adam { return newAdam(groups, false) }

// NewAdamWGroups is NewAdamGroups for AdamW.
func NewAdamWGroups(groups []AdamGroup) *Adam { return newAdam(groups, true) }

func newAdam(groups []AdamGroup, decoupled bool) *Adam {
	if len(groups) == 0 {
		panic("optim: NewAdamGroups: no parameter groups")
	}
	o := &Adam{decoupled: decoupled}
	for _, g := range groups {
		c := g.AdamConfig
		if !(c.LR >= 0 && c.Eps >= 0 && c.WeightDecay >= 0 && c.Beta1 >= 0 && c.Beta1 < 1 && c.Beta2 >= 0 && c.Beta2 < 1) {
			panic(fmt.Sprintf("optim: invalid Adam config %+v", c))
		}
		o.groups = append(o.groups, adamGroup{cfg: c, initialLR: c.LR, first: len(o.params), n: len(g.Params)})
		o.params = append(o.params, g.Params...)
	}
	n := len(o.params)
	o.m, o.v, o.maxV, o.steps = make(buffers, n), make(buffers, n), make(buffers, n), make([]int, n)
	return o
}

func (o *Adam) kind() string {
	if o.decoupled {
		return "adamw"
	}
	return "adam"
}

// Step updates every parameter that has a gradient, advancing its step
// count. A Step that finds no gradient changes nothing.
func (o *Adam) Step() error {
	for gi, gr := range o.groups {
		c := gr.cfg
		for i := gr.first; i < gr.first+gr.n; i++ {
			p := o.params[i]
			g := p.Grad()
			if g == nil {
				continue
			}
			bufs := []*autograd.Tensor{o.m.get(i, p), o.v.get(i, p)}
			if c.AMSGrad {
				bufs = append(bufs, o.maxV.get(i, p))
			}
			if k := kernelsOf("Adam", p); k != nil {
				// The group's config is read inside: a replay of a
				// captured step sees the learning rate set since.
				replayed(k, func() {
					o.steps[i]++
					k.AdamStep(p, g, bufs[0], bufs[1], o.maxV[i], o.groups[gi].cfg.Update(o.steps[i], o.decoupled))
				})
				continue
			}
			o.steps[i]++
			u := c.Update(o.steps[i], o.decoupled)
			apply(p, g, bufs, adamKernel[float32](u), adamKernel[float64](u))
		}
	}
	return syncDevices(o.params)
}

// Update returns the constants of step t (counting from 1) of Adam, or of
// AdamW when decoupled: the one computation of them, which the CPU, the
// autograd device and the GPU engine's recorded AdamW all use.
func (c AdamConfig) Update(t int, decoupled bool) AdamUpdate {
	u := AdamUpdate{
		B1: c.Beta1, B2: c.Beta2, Eps: c.Eps, AMSGrad: c.AMSGrad,
		StepSize: c.LR / (1 - math.Pow(c.Beta1, float64(t))),
		SqrtBC2:  math.Sqrt(1 - math.Pow(c.Beta2, float64(t))),
	}
	if decoupled {
		u.Decay = 1 - c.LR*c.WeightDecay
	} else {
		u.Decay, u.L2 = 1, c.WeightDecay
	}
	return u
}

// AdamUpdate holds one parameter's constants of one Adam update, computed
// in float64: with c₁ = 1-β₁ᵗ and c₂ = 1-β₂ᵗ,
//
//	g ← g + L2·p;  p ← p·Decay
//	m ← B1·m + (1-B1)·g;  v ← B2·v + (1-B2)·g²
//	v̂ ← max(v̂, v) with AMSGrad, else v
//	p ← p - StepSize·m / (√v̂/SqrtBC2 + Eps)
type AdamUpdate struct {
	B1, B2, Eps       float64
	AMSGrad           bool
	Decay, L2         float64 // p ← p·Decay (AdamW); g ← g + L2·p (Adam)
	StepSize, SqrtBC2 float64 // lr/c₁ and √c₂
}

// adamKernel updates p from g with bufs = m, v and, with AMSGrad, max v.
func adamKernel[T autograd.Float](u AdamUpdate) func(p, g []T, bufs [][]T) {
	fc := fused.Adam{B1: u.B1, OneMinusB1: 1 - u.B1, B2: u.B2, OneMinusB2: 1 - u.B2, L2: u.L2, Decay: u.Decay, StepSize: u.StepSize, SqrtBC2: u.SqrtBC2, Eps: u.Eps}
	return func(p, g []T, bufs [][]T) {
		m, v := bufs[0], bufs[1]
		if p32, ok := any(p).([]float32); ok && !u.AMSGrad {
			// The same arithmetic in one vectorised pass, bit for bit.
			fused.AdamFloat32(p32, any(g).([]float32), any(m).([]float32), any(v).([]float32), &fc)
			return
		}
		for j := range p {
			// NOTE: every product is rounded (an explicit conversion)
			// before it is added, so that no build fuses a multiply-add
			// and a trained model is the same on every GOAMD64 level.
			pj := float64(p[j])
			gj := float64(g[j]) + float64(u.L2*pj)
			pj *= u.Decay
			mj := float64(u.B1*float64(m[j])) + float64((1-u.B1)*gj)
			vj := float64(u.B2*float64(v[j])) + float64((1-u.B2)*gj*gj)
			m[j], v[j] = T(mj), T(vj)
			if u.AMSGrad {
				// The maximum of the stored values, as PyTorch's
				// torch.maximum over the buffers.
				bufs[2][j] = max(bufs[2][j], v[j])
				vj = float64(bufs[2][j])
			}
			p[j] = T(pj - float64(u.StepSize*mj)/(math.Sqrt(vj)/u.SqrtBC2+u.Eps))
		}
	}
}

// ZeroGrad clears the parameters' gradients.
func (o *Adam) ZeroGrad() { ZeroGrad(o.params) }

// NumGroups returns the number of parameter groups.
func (o *Adam) NumGroups() int { return len(o.groups) }

// GroupLR returns group i's learning rate.
func (o *Adam) GroupLR(i int) float64 { return o.groups[i].cfg.LR }

// SetGroupLR sets group i's learning rate for the next Step.
func (o *Adam) SetGroupLR(i int, lr float64) { o.groups[i].cfg.LR = lr }

// InitialLR returns group i's learning rate at construction.
func (o *Adam) InitialLR(i int) float64 { return o.groups[i].initialLR }

// SetGroupMomentum sets group i's beta1 for the next Step (what OneCycleLR
// cycles, as PyTorch's betas[0]).
func (o *Adam) SetGroupMomentum(i int, beta1 float64) { o.groups[i].cfg.Beta1 = beta1 }

// State returns the per-parameter step counts, the learning rates and the
// moment buffers ("m", "v" and, with AMSGrad, "max_v").
func (o *Adam) State() State {
	s := State{Kind: o.kind(), ParamSteps: append([]int{}, o.steps...),
		Buffers: map[string][][]float64{"m": o.m.save(), "v": o.v.save()}}
	for _, n := range o.steps {
		s.Steps = max(s.Steps, n)
	}
	for _, g := range o.groups {
		if g.cfg.AMSGrad {
			s.Buffers["max_v"] = o.maxV.save()
			break
		}
	}
	saveLRs(&s, o)
	return s
}

// LoadState restores a State from State. It returns an error when s was
// saved by another kind of optimiser or for other parameters. A state saved
// before step counts were per parameter (no ParamSteps) still loads: every
// parameter that has moments takes its one count.
func (o *Adam) LoadState(s State) error {
	if err := checkKind(o.kind(), s); err != nil {
		return err
	}
	steps, err := paramSteps(o.kind(), s, s.Buffers["m"], len(o.params))
	if err != nil {
		return err
	}
	if err := o.m.load(o.kind(), "m", s.Buffers["m"], o.params); err != nil {
		return err
	}
	if err := o.v.load(o.kind(), "v", s.Buffers["v"], o.params); err != nil {
		return err
	}
	o.maxV = make(buffers, len(o.params))
	if saved, ok := s.Buffers["max_v"]; ok {
		if err := o.maxV.load(o.kind(), "max_v", saved, o.params); err != nil {
			return err
		}
	}
	for _, g := range o.groups {
		for i := g.first; i < g.first+g.n; i++ {
			if !g.cfg.AMSGrad {
				o.maxV[i] = nil
			} else if steps[i] > 0 && o.maxV[i] == nil {
				return fmt.Errorf("optim: %s state has no \"max_v\" for parameter %d, which uses AMSGrad (was it saved without AMSGrad?)", o.kind(), i)
			}
		}
	}
	if err := loadLRs(o.kind(), s, o); err != nil {
		return err
	}
	o.steps = steps
	return nil
}

// paramSteps returns the per-parameter step counts of s for n parameters,
// whose first-moment buffers are first: s.ParamSteps, or for an older state
// without them s.Steps for each parameter with a buffer and 0 for the
// others (which had never had a gradient).
func paramSteps(kind string, s State, first [][]float64, n int) ([]int, error) {
	steps := make([]int, n)
	if s.ParamSteps == nil {
		for i := range min(n, len(first)) {
			if first[i] != nil {
				steps[i] = s.Steps
			}
		}
		return steps, nil
	}
	if len(s.ParamSteps) != n {
		return nil, fmt.Errorf("optim: %s state has step counts for %d parameters; the optimiser has %d (was it saved for another model?)", kind, len(s.ParamSteps), n)
	}
	for i, k := range s.ParamSteps {
		if k < 0 {
			return nil, fmt.Errorf("optim: %s state has a negative step count %d for parameter %d", kind, k, i)
		}
		if k > 0 && (i >= len(first) || first[i] == nil) {
			return nil, fmt.Errorf("optim: %s state has %d steps but no moments for parameter %d; the state is damaged", kind, k, i)
		}
	}
	return append(steps[:0], s.ParamSteps...), nil
}
