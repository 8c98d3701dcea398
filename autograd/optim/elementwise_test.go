package optim

import (
	"encoding/json"
	"math"
	"slices"
	"testing"

	"github.com/dlca/dlca/autograd"
)

// The float64 references below restate torch/optim/*.py of PyTorch 1.13
// (_single_tensor_<name>) for one scalar parameter, line by line, so that
// the trajectories do not come from the code under test. NAdam's follows
// PyTorch's documented algorithm (and 2.x), see NAdam.

// refGrad is the gradient of element j at step k (from 1): it changes sign
// and size, so every buffer sees something new each step.
func refGrad(k, j int) float64 { return math.Sin(1.3*float64(k)+float64(j)) * (1 + 0.5*float64(j)) }

var refStart = []float64{0.5, -1.25, 2}

type refOptimiser struct {
	name string
	make func(ps []*autograd.Tensor) Optimizer
	// ref returns the parameter after each of steps steps from p0, with
	// gradients refGrad(k, j).
	ref func(p0 float64, j, steps int) []float64
}

func refRMSprop(c RMSpropConfig) func(p0 float64, j, steps int) []float64 {
	return func(p float64, j, steps int) []float64 {
		var sq, gavg, buf float64
		var out []float64
		for k := 1; k <= steps; k++ {
			g := refGrad(k, j)
			if c.WeightDecay != 0 {
				g += c.WeightDecay * p
			}
			sq = sq*c.Alpha + (1-c.Alpha)*g*g
			var avg float64
			if c.Centered {
				gavg = gavg*c.Alpha + (1-c.Alpha)*g
				avg = math.Sqrt(sq - gavg*gavg)
			} else {
				avg = math.Sqrt(sq)
			}
			avg += c.Eps
			if c.Momentum > 0 {
				buf = buf*c.Momentum + g/avg
				p -= c.LR * buf
			} else {
				p -= c.LR * g / avg
			}
			out = append(out, p)
		}
		return out
	}
}

func refAdagrad(c AdagradConfig) func(p0 float64, j, steps int) []float64 {
	return func(p float64, j, steps int) []float64 {
		sum := c.InitialAccumulatorValue
		var out []float64
		for k := 1; k <= steps; k++ {
			g := refGrad(k, j)
			if c.WeightDecay != 0 {
				g += c.WeightDecay * p
			}
			clr := c.LR / (1 + float64(k-1)*c.LRDecay)
			sum += g * g
			p -= clr * g / (math.Sqrt(sum) + c.Eps)
			out = append(out, p)
		}
		return out
	}
}

func refAdamax(c AdamaxConfig) func(p0 float64, j, steps int) []float64 {
	return func(p float64, j, steps int) []float64 {
		var m, u float64
		var out []float64
		for k := 1; k <= steps; k++ {
			g := refGrad(k, j)
			if c.WeightDecay != 0 {
				g += c.WeightDecay * p
			}
			m = m*c.Beta1 + (1-c.Beta1)*g
			u = math.Max(u*c.Beta2, math.Abs(g)+c.Eps)
			p -= c.LR / (1 - math.Pow(c.Beta1, float64(k))) * m / u
			out = append(out, p)
		}
		return out
	}
}

func refNAdam(c NAdamConfig) func(p0 float64, j, steps int) []float64 {
	return func(p float64, j, steps int) []float64 {
		var m, v float64
		prod := 1.0
		var out []float64
		for k := 1; k <= steps; k++ {
			g := refGrad(k, j)
			if c.WeightDecay != 0 {
				g += c.WeightDecay * p
			}
			mu := c.Beta1 * (1 - 0.5*math.Pow(0.96, float64(k)*c.MomentumDecay))
			muNext := c.Beta1 * (1 - 0.5*math.Pow(0.96, float64(k+1)*c.MomentumDecay))
			prod *= mu
			m = m*c.Beta1 + (1-c.Beta1)*g
			v = v*c.Beta2 + (1-c.Beta2)*g*g
			denom := math.Sqrt(v/(1-math.Pow(c.Beta2, float64(k)))) + c.Eps
			p += -c.LR * (1 - mu) / (1 - prod) * g / denom
			p += -c.LR * muNext / (1 - prod*muNext) * m / denom
			out = append(out, p)
		}
		return out
	}
}

func refRAdam(c RAdamConfig) func(p0 float64, j, steps int) []float64 {
	return func(p float64, j, steps int) []float64 {
		var m, v float64
		var out []float64
		for k := 1; k <= steps; k++ {
			g := refGrad(k, j)
			if c.WeightDecay != 0 {
				g += c.WeightDecay * p
			}
			bc1, bc2 := 1-math.Pow(c.Beta1, float64(k)), 1-math.Pow(c.Beta2, float64(k))
			m = m*c.Beta1 + (1-c.Beta1)*g
			v = v*c.Beta2 + (1-c.Beta2)*g*g
			mhat := m / bc1
			rhoInf := 2/(1-c.Beta2) - 1
			rho := rhoInf - 2*float64(k)*math.Pow(c.Beta2, float64(k))/bc2
			if rho > 5 {
				rect := math.Sqrt((rho - 4) * (rho - 2) * rhoInf / ((rhoInf - 4) * (rhoInf - 2) * rho))
				adaptive := math.Sqrt(bc2) / (math.Sqrt(v) + c.Eps)
				p -= mhat * c.LR * adaptive * rect
			} else {
				p -= mhat * c.LR
			}
			out = append(out, p)
		}
		return out
	}
}

// refOptimisers are the cases: defaults, and every option away from its
// default. RAdam with β₂ = 0.9 rectifies from step 6 on (ρₜ > 5), so its
// trajectories cover both branches.
func refOptimisers() []refOptimiser {
	rms := RMSpropConfig{LR: 0.05, Alpha: 0.9, Eps: 1e-3, WeightDecay: 0.1, Momentum: 0.8, Centered: true}
	rmsPlain := DefaultRMSprop()
	rmsMomentum := RMSpropConfig{LR: 0.02, Alpha: 0.95, Eps: 1e-6, Momentum: 0.5}
	ada := AdagradConfig{LR: 0.1, LRDecay: 0.3, WeightDecay: 0.05, InitialAccumulatorValue: 0.2, Eps: 1e-4}
	adamax := AdamaxConfig{LR: 0.05, Beta1: 0.8, Beta2: 0.9, Eps: 1e-3, WeightDecay: 0.1}
	nadam := NAdamConfig{LR: 0.05, Beta1: 0.8, Beta2: 0.95, Eps: 1e-4, WeightDecay: 0.1, MomentumDecay: 0.5}
	radam := RAdamConfig{LR: 0.05, Beta1: 0.8, Beta2: 0.9, Eps: 1e-4, WeightDecay: 0.1}
	return []refOptimiser{
		{"RMSprop default", func(ps []*autograd.Tensor) Optimizer { return NewRMSprop(ps, rmsPlain) }, refRMSprop(rmsPlain)},
		{"RMSprop momentum", func(ps []*autograd.Tensor) Optimizer { return NewRMSprop(ps, rmsMomentum) }, refRMSprop(rmsMomentum)},
		{"RMSprop centered", func(ps []*autograd.Tensor) Optimizer { return NewRMSprop(ps, rms) }, refRMSprop(rms)},
		{"Adagrad default", func(ps []*autograd.Tensor) Optimizer { return NewAdagrad(ps, DefaultAdagrad()) }, refAdagrad(DefaultAdagrad())},
		{"Adagrad options", func(ps []*autograd.Tensor) Optimizer { return NewAdagrad(ps, ada) }, refAdagrad(ada)},
		{"Adamax default", func(ps []*autograd.Tensor) Optimizer { return NewAdamax(ps, DefaultAdamax()) }, refAdamax(DefaultAdamax())},
		{"Adamax options", func(ps []*autograd.Tensor) Optimizer { return NewAdamax(ps, adamax) }, refAdamax(adamax)},
		{"NAdam default", func(ps []*autograd.Tensor) Optimizer { return NewNAdam(ps, DefaultNAdam()) }, refNAdam(DefaultNAdam())},
		{"NAdam options", func(ps []*autograd.Tensor) Optimizer { return NewNAdam(ps, nadam) }, refNAdam(nadam)},
		{"RAdam default", func(ps []*autograd.Tensor) Optimizer { return NewRAdam(ps, DefaultRAdam()) }, refRAdam(DefaultRAdam())},
		{"RAdam rectified", func(ps []*autograd.Tensor) Optimizer { return NewRAdam(ps, radam) }, refRAdam(radam)},
	}
}

const refSteps = 8

func setRefGrads(ps []*autograd.Tensor, k int) {
	for _, p := range ps {
		g := autograd.Zeros(p.DType(), p.Shape()...)
		for j := range p.Len() {
			g.SetAt(j, refGrad(k, j))
		}
		p.SetGrad(g)
	}
}

// TestElementwiseTrajectories runs eight steps of every case in float64
// and float32 and compares each step's parameters with the reference.
func TestElementwiseTrajectories(t *testing.T) {
	for _, c := range refOptimisers() {
		want := make([][]float64, len(refStart))
		for j, p0 := range refStart {
			want[j] = c.ref(p0, j, refSteps)
		}
		for _, dtype := range []autograd.DType{autograd.Float64, autograd.Float32} {
			p := autograd.Zeros(dtype, len(refStart)).SetRequiresGrad(true)
			for j, v := range refStart {
				p.SetAt(j, v)
			}
			ps := []*autograd.Tensor{p}
			o := c.make(ps)
			tol := 1e-12
			if dtype == autograd.Float32 {
				tol = 2e-6
			}
			for k := 1; k <= refSteps; k++ {
				setRefGrads(ps, k)
				if err := o.Step(); err != nil {
					t.Fatal(err)
				}
				for j := range refStart {
					if got, w := p.At(j), want[j][k-1]; !(math.Abs(got-w) <= tol*max(1, math.Abs(w))) {
						t.Fatalf("%s %v: step %d element %d = %.15g, want %.15g", c.name, dtype, k, j, got, w)
					}
				}
			}
		}
	}
}

// TestElementwiseStateResume saves the state after three steps (through
// JSON), loads it into a fresh optimiser over fresh parameters, and checks
// that the next steps match those of the optimiser that went on.
func TestElementwiseStateResume(t *testing.T) {
	for _, c := range refOptimisers() {
		newParam := func() []*autograd.Tensor {
			return []*autograd.Tensor{autograd.New64(slices.Clone(refStart), len(refStart)).SetRequiresGrad(true)} // New64 keeps the slice
		}
		a := newParam()
		oa := c.make(a)
		for k := 1; k <= 3; k++ {
			setRefGrads(a, k)
			if err := oa.Step(); err != nil {
				t.Fatal(err)
			}
		}
		js, err := json.Marshal(oa.(interface{ State() State }).State())
		if err != nil {
			t.Fatal(err)
		}
		var s State
		if err := json.Unmarshal(js, &s); err != nil {
			t.Fatal(err)
		}
		b := newParam()
		for j := range refStart {
			b[0].SetAt(j, a[0].At(j))
		}
		ob := c.make(b)
		if err := ob.(interface{ LoadState(State) error }).LoadState(s); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for k := 4; k <= 6; k++ {
			setRefGrads(a, k)
			setRefGrads(b, k)
			if err := oa.Step(); err != nil {
				t.Fatal(err)
			}
			if err := ob.Step(); err != nil {
				t.Fatal(err)
			}
		}
		for j := range refStart {
			if a[0].At(j) != b[0].At(j) {
				t.Errorf("%s: resumed parameter %d = %v, uninterrupted %v", c.name, j, b[0].At(j), a[0].At(j))
			}
		}
	}
}

// TestElementwiseSkipsWithoutGrad: a parameter without a gradient is left
// alone and its step count does not advance (Adagrad's lr decay and the
// bias corrections count the parameter's own steps).
func TestElementwiseSkipsWithoutGrad(t *testing.T) {
	cfg := AdagradConfig{LR: 0.1, LRDecay: 1}
	a := autograd.New64([]float64{1}, 1).SetRequiresGrad(true)
	b := autograd.New64([]float64{1}, 1).SetRequiresGrad(true)
	o := NewAdagrad([]*autograd.Tensor{a, b}, cfg)
	a.SetGrad(autograd.New64([]float64{1}, 1))
	if err := o.Step(); err != nil {
		t.Fatal(err)
	}
	if b.At(0) != 1 {
		t.Fatalf("parameter without gradient moved to %v", b.At(0))
	}
	b.SetGrad(autograd.New64([]float64{2}, 1))
	a.ZeroGrad()
	if err := o.Step(); err != nil {
		t.Fatal(err)
	}
	// b's first step: clr = lr, sum = 4, p = 1 - 0.1·2/2.
	near(t, "b after its first step", b.At(0), 0.9, 1e-9)
	if s := o.State(); s.ParamSteps[0] != 1 || s.ParamSteps[1] != 1 {
		t.Errorf("step counts %v, want [1 1]", s.ParamSteps)
	}
}

func TestElementwiseInvalidConfigs(t *testing.T) {
	p := []*autograd.Tensor{autograd.New64([]float64{1}, 1)}
	for name, f := range map[string]func(){
		"RMSprop lr":       func() { NewRMSprop(p, RMSpropConfig{LR: -1}) },
		"Adagrad lr decay": func() { NewAdagrad(p, AdagradConfig{LR: 1, LRDecay: -1}) },
		"Adamax beta":      func() { NewAdamax(p, AdamaxConfig{LR: 1, Beta1: 1}) },
		"NAdam decay":      func() { NewNAdam(p, NAdamConfig{LR: 1, MomentumDecay: -1}) },
		"RAdam beta2":      func() { NewRAdam(p, RAdamConfig{LR: 1, Beta2: 1.5}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}
