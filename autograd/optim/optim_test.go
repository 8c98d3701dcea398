package optim

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/dlca/dlca/autograd"
)

// param returns a float64 leaf holding vals with its gradient set to grads.
func param(vals, grads []float64) *autograd.Tensor {
	p := autograd.New64(vals, len(vals)).SetRequiresGrad(true)
	p.SetGrad(autograd.New64(grads, len(grads)))
	return p
}

func near(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Fatalf("%s = %.12g, want %.12g", name, got, want)
	}
}

// TestSGD checks the update against values worked out by hand from
// torch.optim.SGD's documented rule, with a constant gradient g = 0.5.
func TestSGD(t *testing.T) {
	cases := []struct {
		name string
		cfg  SGDConfig
		want []float64 // parameter after each of two steps, starting from 1
	}{
		{"plain", SGDConfig{LR: 0.1}, []float64{0.95, 0.90}},
		// b1 = g, b2 = 0.9g + g = 1.9g.
		{"momentum", SGDConfig{LR: 0.1, Momentum: 0.9}, []float64{0.95, 0.95 - 0.1*0.95}},
		// d1 = g + 0.9·g = 1.9g; b2 = 1.9g, d2 = g + 0.9·1.9g = 2.71g.
		{"nesterov", SGDConfig{LR: 0.1, Momentum: 0.9, Nesterov: true}, []float64{1 - 0.095, 1 - 0.095 - 0.1355}},
		// g' = g + 0.1·p: 0.6, then 0.5 + 0.094.
		{"weight decay", SGDConfig{LR: 0.1, WeightDecay: 0.1}, []float64{0.94, 0.94 - 0.0594}},
	}
	for _, c := range cases {
		p := param([]float64{1}, []float64{0.5})
		opt := NewSGD([]*autograd.Tensor{p}, c.cfg)
		for _, w := range c.want {
			if err := opt.Step(); err != nil {
				t.Fatal(err)
			}
			near(t, c.name, p.At(0), w, 1e-12)
		}
	}
}

// TestAdam checks two Adam steps (g = 1 then -2, lr = 0.1) against the
// update computed by hand from the paper's algorithm: -0.1, then -0.0633896.
func TestAdam(t *testing.T) {
	p := param([]float64{0}, []float64{1})
	opt := NewAdam([]*autograd.Tensor{p}, adamConfig(0.1, 0))
	if err := opt.Step(); err != nil {
		t.Fatal(err)
	}
	near(t, "step 1", p.At(0), -0.1, 1e-8)
	p.SetGrad(autograd.New64([]float64{-2}, 1))
	if err := opt.Step(); err != nil {
		t.Fatal(err)
	}
	near(t, "step 2", p.At(0), -0.06338964652792518, 1e-9)
}

// TestWeightDecay contrasts AdamW's decoupled decay with Adam's L2 decay on
// a first step (where Adam moves by lr·g/|g|): AdamW gives
// 2·(1 - 0.01·0.1) - 0.01 = 1.988; Adam's decay only changes g, so 1.99.
func TestWeightDecay(t *testing.T) {
	cfg := adamConfig(0.01, 0.1)
	pw := param([]float64{2}, []float64{0.5})
	if err := NewAdamW([]*autograd.Tensor{pw}, cfg).Step(); err != nil {
		t.Fatal(err)
	}
	near(t, "AdamW", pw.At(0), 1.988, 1e-9)
	pa := param([]float64{2}, []float64{0.5})
	if err := NewAdam([]*autograd.Tensor{pa}, cfg).Step(); err != nil {
		t.Fatal(err)
	}
	near(t, "Adam", pa.At(0), 1.99, 1e-9)
}

// adamConfig is DefaultAdam with lr and weight decay wd.
func adamConfig(lr, wd float64) AdamConfig {
	c := DefaultAdam()
	c.LR, c.WeightDecay = lr, wd
	return c
}

// TestDefaults holds DefaultAdam and DefaultAdamW to the defaults in
// PyTorch's documentation of torch.optim.Adam and AdamW.
func TestDefaults(t *testing.T) {
	if got, want := DefaultAdam(), (AdamConfig{LR: 1e-3, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8}); got != want {
		t.Errorf("DefaultAdam %+v, want %+v", got, want)
	}
	if got, want := DefaultAdamW(), (AdamConfig{LR: 1e-3, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, WeightDecay: 1e-2}); got != want {
		t.Errorf("DefaultAdamW %+v, want %+v", got, want)
	}
}

// TestSkipsParamsWithoutGrad checks that a parameter without a gradient is
// left alone, as in PyTorch.
func TestSkipsParamsWithoutGrad(t *testing.T) {
	p := autograd.New64([]float64{3}, 1).SetRequiresGrad(true)
	opt := NewAdamW([]*autograd.Tensor{p}, adamConfig(1e-3, 0.5))
	if err := opt.Step(); err != nil {
		t.Fatal(err)
	}
	if p.At(0) != 3 {
		t.Fatalf("parameter without gradient moved to %v", p.At(0))
	}
}

type stateful interface {
	Optimizer
	State() State
	LoadState(State) error
}

// TestStateRoundTrip saves an optimiser's state through JSON midway, loads
// it into a fresh optimiser over copied parameters, and checks that both
// continue identically, bit for bit (float32 parameters).
func TestStateRoundTrip(t *testing.T) {
	grads := [][]float32{{0.5, -1}, {0.25, 2}, {-0.75, 0.1}, {1, 1}}
	newParam := func(vals []float32) *autograd.Tensor {
		return autograd.New(append([]float32(nil), vals...), len(vals)).SetRequiresGrad(true)
	}
	makers := map[string]func(ps []*autograd.Tensor) stateful{
		"sgd":   func(ps []*autograd.Tensor) stateful { return NewSGD(ps, SGDConfig{LR: 0.1, Momentum: 0.9}) },
		"adam":  func(ps []*autograd.Tensor) stateful { return NewAdam(ps, adamConfig(0.1, 0)) },
		"adamw": func(ps []*autograd.Tensor) stateful { return NewAdamW(ps, adamConfig(0.1, 0.1)) },
		"amsgrad": func(ps []*autograd.Tensor) stateful {
			c := adamConfig(0.1, 0.1)
			c.AMSGrad = true
			return NewAdamW(ps, c)
		},
	}
	for _, name := range []string{"sgd", "adam", "adamw", "amsgrad"} {
		a := newParam([]float32{1, 2})
		optA := makers[name]([]*autograd.Tensor{a})
		for _, g := range grads[:2] {
			a.SetGrad(autograd.New(append([]float32(nil), g...), 2))
			if err := optA.Step(); err != nil {
				t.Fatal(err)
			}
		}
		blob, err := json.Marshal(optA.State())
		if err != nil {
			t.Fatal(err)
		}
		var s State
		if err := json.Unmarshal(blob, &s); err != nil {
			t.Fatal(err)
		}
		b := newParam(a.Data32())
		optB := makers[name]([]*autograd.Tensor{b})
		if err := optB.LoadState(s); err != nil {
			t.Fatal(err)
		}
		for _, g := range grads[2:] {
			for _, p := range []*autograd.Tensor{a, b} {
				p.SetGrad(autograd.New(append([]float32(nil), g...), 2))
			}
			if err := optA.Step(); err != nil {
				t.Fatal(err)
			}
			if err := optB.Step(); err != nil {
				t.Fatal(err)
			}
		}
		for i := range 2 {
			if a.Data32()[i] != b.Data32()[i] {
				t.Fatalf("%s: resumed parameter %v differs from uninterrupted %v", name, b.Data32(), a.Data32())
			}
		}
		wrong := State{Kind: "other"}
		if err := optB.LoadState(wrong); err == nil {
			t.Fatalf("%s: LoadState accepted state of another kind", name)
		}
		short := optA.State()
		for k := range short.Buffers {
			short.Buffers[k] = nil
		}
		if err := optB.LoadState(short); err == nil {
			t.Fatalf("%s: LoadState accepted buffers for no parameters", name)
		}
	}
}

func TestClipGradValue(t *testing.T) {
	p := param([]float64{0, 0, 0}, []float64{-3, 0.5, 2})
	ClipGradValue([]*autograd.Tensor{p}, 1)
	want := []float64{-1, 0.5, 1}
	for i, w := range want {
		near(t, "clipped", p.Grad().At(i), w, 0)
	}
}
