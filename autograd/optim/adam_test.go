package optim

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/dlca/dlca/autograd"
)

// refAdam is one parameter under PyTorch 1.13's Adam/AdamW update
// (torch.optim.Adam's documented algorithm, single-tensor path), written
// out per element in float64 independently of the optimiser's code.
type refAdam struct {
	p, m, v, vmax []float64
	step          int
}

func newRefAdam(p []float64) *refAdam {
	n := len(p)
	return &refAdam{p: append([]float64(nil), p...), m: make([]float64, n), v: make([]float64, n), vmax: make([]float64, n)}
}

// update applies one optimizer.step() given the parameter's gradient g; a
// nil g is PyTorch's grad None: the parameter is skipped entirely.
func (r *refAdam) update(g []float64, c AdamConfig, adamW bool) {
	if g == nil {
		return
	}
	r.step++
	bc1 := 1 - math.Pow(c.Beta1, float64(r.step))
	bc2 := 1 - math.Pow(c.Beta2, float64(r.step))
	for j := range r.p {
		gj := g[j]
		if adamW {
			r.p[j] *= 1 - c.LR*c.WeightDecay
		} else {
			gj += c.WeightDecay * r.p[j]
		}
		r.m[j] = c.Beta1*r.m[j] + (1-c.Beta1)*gj
		r.v[j] = c.Beta2*r.v[j] + (1-c.Beta2)*gj*gj
		denom := r.v[j]
		if c.AMSGrad {
			r.vmax[j] = math.Max(r.vmax[j], r.v[j])
			denom = r.vmax[j]
		}
		r.p[j] -= c.LR / bc1 * r.m[j] / (math.Sqrt(denom)/math.Sqrt(bc2) + c.Eps)
	}
}

func randVals(rng *rand.Rand, n int, scale float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = scale * (2*rng.Float64() - 1)
	}
	return out
}

// TestAdamLateParameter is issue 14's scenario: P1 [3,4] trains from step
// 1, P2 [4] gets no gradient for steps 1-5 and joins at step 6, and one
// Step in the middle finds no gradient at all. After 10 steps with
// gradients both must equal PyTorch's per-parameter-step update within
// 1e-6; the gradients shrink over time, so AMSGrad's maximum matters.
func TestAdamLateParameter(t *testing.T) {
	zeros := DefaultAdam()
	zeros.LR, zeros.Beta1, zeros.Beta2, zeros.Eps = 0.05, 0, 0, 0
	cases := []struct {
		name  string
		cfg   AdamConfig
		adamW bool
	}{
		{"adam", adamConfig(0.1, 0.1), false},
		{"adamw", adamConfig(0.1, 0.1), true},
		{"adam amsgrad", amsgrad(adamConfig(0.1, 0.1)), false},
		{"adamw amsgrad", amsgrad(adamConfig(0.1, 0.1)), true},
		{"adamw zero betas and eps", zeros, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(14, 1))
			init1, init2 := randVals(rng, 12, 1), randVals(rng, 4, 1)
			p1 := autograd.New64(append([]float64(nil), init1...), 3, 4).SetRequiresGrad(true)
			p2 := autograd.New64(append([]float64(nil), init2...), 4).SetRequiresGrad(true)
			r1, r2 := newRefAdam(init1), newRefAdam(init2)
			newOpt := NewAdam
			if c.adamW {
				newOpt = NewAdamW
			}
			opt := newOpt([]*autograd.Tensor{p1, p2}, c.cfg)
			for it := 1; it <= 11; it++ {
				var g1, g2 []float64
				if it != 4 { // the fourth Step finds no gradient at all
					g1 = randVals(rng, 12, 1/float64(it))
				}
				if it >= 6 { // P2 gets no gradient in steps 1-5 and joins at step 6, as in the issue
					g2 = randVals(rng, 4, 1/float64(it))
				}
				opt.ZeroGrad()
				if g1 != nil {
					p1.SetGrad(autograd.New64(g1, 3, 4))
				}
				if g2 != nil {
					p2.SetGrad(autograd.New64(g2, 4))
				}
				before := opt.State().ParamSteps
				if err := opt.Step(); err != nil {
					t.Fatal(err)
				}
				if g1 == nil && g2 == nil && !slices.Equal(opt.State().ParamSteps, before) {
					t.Fatalf("a Step without gradients moved the step counts from %v to %v", before, opt.State().ParamSteps)
				}
				r1.update(g1, c.cfg, c.adamW)
				r2.update(g2, c.cfg, c.adamW)
			}
			if got := opt.State().ParamSteps; !slices.Equal(got, []int{10, 6}) {
				t.Fatalf("per-parameter steps %v, want [10 6]", got)
			}
			for j, w := range r1.p {
				near(t, "P1", p1.At(j), w, 1e-6)
			}
			for j, w := range r2.p {
				near(t, "P2", p2.At(j), w, 1e-6)
			}
		})
	}
}

func amsgrad(c AdamConfig) AdamConfig {
	c.AMSGrad = true
	return c
}

// TestAdamExplicitZeros: with beta1 = beta2 = eps = 0, m = g and v = g²
// and the bias corrections are 1, so each step moves p by exactly -lr·sign(g):
// 1 → 0.9 (g = 0.5) → 1.0 (g = -2). Zero used to mean "default".
func TestAdamExplicitZeros(t *testing.T) {
	p := param([]float64{1}, []float64{0.5})
	opt := NewAdam([]*autograd.Tensor{p}, AdamConfig{LR: 0.1})
	if err := opt.Step(); err != nil {
		t.Fatal(err)
	}
	near(t, "step 1", p.At(0), 0.9, 1e-15)
	p.SetGrad(autograd.New64([]float64{-2}, 1))
	if err := opt.Step(); err != nil {
		t.Fatal(err)
	}
	near(t, "step 2", p.At(0), 1.0, 1e-15)
}

// TestAMSGradByHand: g = 2 then 1 with betas (0.5, 0.5), lr 1, eps 0.
// Step 1: m = 1, v = 2, bias-corrected m̂ = 2, v̂ = 4: p = 0 - 2/2 = -1.
// Step 2: m = 1, v = 1.5 (max stays 2); c₁ = c₂ = 0.75:
// p = -1 - (1/0.75)·1/(√2/√0.75) = -1 - √0.75/(0.75·√2) ≈ -1.8164966;
// without AMSGrad, √1.5 in place of √2: ≈ -1.9428090.
func TestAMSGradByHand(t *testing.T) {
	for _, ams := range []bool{true, false} {
		p := param([]float64{0}, []float64{2})
		opt := NewAdam([]*autograd.Tensor{p}, AdamConfig{LR: 1, Beta1: 0.5, Beta2: 0.5, AMSGrad: ams})
		if err := opt.Step(); err != nil {
			t.Fatal(err)
		}
		near(t, "step 1", p.At(0), -1, 1e-15)
		p.SetGrad(autograd.New64([]float64{1}, 1))
		if err := opt.Step(); err != nil {
			t.Fatal(err)
		}
		vhat := 1.5
		if ams {
			vhat = 2
		}
		near(t, "step 2", p.At(0), -1-(1/0.75)/(math.Sqrt(vhat)/math.Sqrt(0.75)), 1e-12)
	}
}

// TestAdamOldState loads a state in the format written before step counts
// were per parameter: one count for the optimiser. The parameter with
// moments takes it (its next step is the sixth); the one without starts
// from nothing.
func TestAdamOldState(t *testing.T) {
	old := `{"kind":"adamw","steps":5,"lr":0.1,"buffers":{"m":[[0.1,-0.2],null],"v":[[0.01,0.04],null]}}`
	var s State
	if err := json.Unmarshal([]byte(old), &s); err != nil {
		t.Fatal(err)
	}
	cfg := adamConfig(0.5, 0.1) // the state's lr 0.1 replaces 0.5
	a := param([]float64{1, 2}, []float64{0.3, -0.4})
	b := param([]float64{3}, []float64{1})
	opt := NewAdamW([]*autograd.Tensor{a, b}, cfg)
	if err := opt.LoadState(s); err != nil {
		t.Fatal(err)
	}
	if got := opt.State().ParamSteps; !slices.Equal(got, []int{5, 0}) {
		t.Fatalf("per-parameter steps after loading %v, want [5 0]", got)
	}
	if err := opt.Step(); err != nil {
		t.Fatal(err)
	}
	cfg.LR = 0.1
	ra := &refAdam{p: []float64{1, 2}, m: []float64{0.1, -0.2}, v: []float64{0.01, 0.04}, vmax: make([]float64, 2), step: 5}
	ra.update([]float64{0.3, -0.4}, cfg, true)
	rb := newRefAdam([]float64{3})
	rb.update([]float64{1}, cfg, true)
	for j := range 2 {
		near(t, "a", a.At(j), ra.p[j], 1e-12)
	}
	near(t, "b", b.At(0), rb.p[0], 1e-12)

	bad := []struct {
		name string
		edit func(*State)
	}{
		{"steps for another count of parameters", func(s *State) { s.ParamSteps = []int{1} }},
		{"negative step", func(s *State) { s.ParamSteps = []int{-1, 0} }},
		{"steps without moments", func(s *State) { s.ParamSteps = []int{5, 3} }},
	}
	for _, c := range bad {
		s2 := s
		c.edit(&s2)
		if err := NewAdamW([]*autograd.Tensor{a, b}, cfg).LoadState(s2); err == nil {
			t.Errorf("%s: LoadState accepted it", c.name)
		}
	}
	if err := NewAdamW([]*autograd.Tensor{a, b}, amsgrad(cfg)).LoadState(s); err == nil {
		t.Errorf("an AMSGrad optimiser loaded a state without max_v")
	}
}

// TestAdamGroups: two groups with their own learning rate, weight decay and
// AMSGrad each follow PyTorch's update with their own hyper-parameters, and
// their learning rates survive a State round trip.
func TestAdamGroups(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 2))
	ca, cb := adamConfig(0.1, 0.5), amsgrad(adamConfig(0.01, 0))
	ia, ib := randVals(rng, 3, 1), randVals(rng, 2, 1)
	a := autograd.New64(append([]float64(nil), ia...), 3).SetRequiresGrad(true)
	b := autograd.New64(append([]float64(nil), ib...), 2).SetRequiresGrad(true)
	opt := NewAdamWGroups([]AdamGroup{
		{Params: []*autograd.Tensor{a}, AdamConfig: ca},
		{Params: []*autograd.Tensor{b}, AdamConfig: cb},
	})
	ra, rb := newRefAdam(ia), newRefAdam(ib)
	for it := 1; it <= 4; it++ {
		ga, gb := randVals(rng, 3, 1/float64(it)), randVals(rng, 2, 1/float64(it))
		a.SetGrad(autograd.New64(ga, 3))
		b.SetGrad(autograd.New64(gb, 2))
		if err := opt.Step(); err != nil {
			t.Fatal(err)
		}
		ra.update(ga, ca, true)
		rb.update(gb, cb, true)
	}
	for j, w := range ra.p {
		near(t, "group 0", a.At(j), w, 1e-12)
	}
	for j, w := range rb.p {
		near(t, "group 1", b.At(j), w, 1e-12)
	}

	opt.SetGroupLR(1, 0.005)
	s := opt.State()
	if !slices.Equal(s.GroupLRs, []float64{0.1, 0.005}) || s.LR != 0.1 {
		t.Fatalf("saved learning rates %v %v, want 0.1 and [0.1 0.005]", s.LR, s.GroupLRs)
	}
	fresh := NewAdamWGroups([]AdamGroup{
		{Params: []*autograd.Tensor{a}, AdamConfig: ca},
		{Params: []*autograd.Tensor{b}, AdamConfig: cb},
	})
	if err := fresh.LoadState(s); err != nil {
		t.Fatal(err)
	}
	if fresh.GroupLR(1) != 0.005 || fresh.InitialLR(1) != 0.01 {
		t.Fatalf("loaded group 1 lr %v (initial %v), want 0.005 (0.01)", fresh.GroupLR(1), fresh.InitialLR(1))
	}
	one := NewAdamW([]*autograd.Tensor{a, b}, ca)
	if err := one.LoadState(s); err == nil {
		t.Fatal("a one-group optimiser loaded a two-group state")
	}
}

// TestSGDGroups: lr 0.1 with weight decay 0.1 and lr 1 without, g = 0.5 on
// p = 1: 1 - 0.1·(0.5+0.1) = 0.94 and 1 - 0.5 = 0.5.
func TestSGDGroups(t *testing.T) {
	a, b := param([]float64{1}, []float64{0.5}), param([]float64{1}, []float64{0.5})
	opt := NewSGDGroups([]SGDGroup{
		{Params: []*autograd.Tensor{a}, SGDConfig: SGDConfig{LR: 0.1, WeightDecay: 0.1}},
		{Params: []*autograd.Tensor{b}, SGDConfig: SGDConfig{LR: 1}},
	})
	if err := opt.Step(); err != nil {
		t.Fatal(err)
	}
	near(t, "group 0", a.At(0), 0.94, 1e-15)
	near(t, "group 1", b.At(0), 0.5, 1e-15)
}

// TestInvalidConfigs: PyTorch raises on these; the constructors panic.
func TestInvalidConfigs(t *testing.T) {
	for name, f := range map[string]func(){
		"beta1 1":            func() { NewAdam(nil, AdamConfig{Beta1: 1}) },
		"negative eps":       func() { NewAdam(nil, AdamConfig{Eps: -1}) },
		"no groups":          func() { NewAdamGroups(nil) },
		"sgd no groups":      func() { NewSGDGroups(nil) },
		"one-cycle zero div": func() { OneCycleLR{TotalSteps: 10}.LR(1, 0) },
		"clip norm type 0": func() {
			ClipGradNorm(nil, 1, 0)
		},
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
