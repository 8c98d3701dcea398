package optim

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/internal/torchtest"
)

// torchCase is an optimiser built the same way here and in torch.optim.
type torchCase struct {
	Name   string         `json:"name"`
	Class  string         `json:"class"`
	Kwargs map[string]any `json:"kwargs"`
	make   func([]*autograd.Tensor) TorchOptimizer
	// GoParams are Go's parameters at the resume step.
	GoParams [][]float64 `json:"go_params"`
}

// torchCases: every optimiser with options away from the defaults. NAdam
// is not among them: PyTorch 1.13's NAdam has the bug its doc comment
// describes, so its trajectories differ from the documented algorithm;
// TestElementwiseTrajectories checks it against that.
func torchCases() []torchCase {
	return []torchCase{
		{Name: "sgd", Class: "SGD", Kwargs: map[string]any{"lr": 0.1, "momentum": 0.9, "dampening": 0.1, "weight_decay": 0.01},
			make: func(ps []*autograd.Tensor) TorchOptimizer {
				return NewSGD(ps, SGDConfig{LR: 0.1, Momentum: 0.9, Dampening: 0.1, WeightDecay: 0.01})
			}},
		{Name: "adam", Class: "Adam", Kwargs: map[string]any{"lr": 0.05, "betas": []float64{0.8, 0.9}, "eps": 1e-6, "weight_decay": 0.01, "amsgrad": true},
			make: func(ps []*autograd.Tensor) TorchOptimizer {
				return NewAdam(ps, AdamConfig{LR: 0.05, Beta1: 0.8, Beta2: 0.9, Eps: 1e-6, WeightDecay: 0.01, AMSGrad: true})
			}},
		{Name: "adamw", Class: "AdamW", Kwargs: map[string]any{"lr": 0.05, "weight_decay": 0.1},
			make: func(ps []*autograd.Tensor) TorchOptimizer {
				c := DefaultAdamW()
				c.LR, c.WeightDecay = 0.05, 0.1
				return NewAdamW(ps, c)
			}},
		{Name: "rmsprop", Class: "RMSprop", Kwargs: map[string]any{"lr": 0.01, "alpha": 0.9, "eps": 1e-4, "weight_decay": 0.01, "momentum": 0.5, "centered": true},
			make: func(ps []*autograd.Tensor) TorchOptimizer {
				return NewRMSprop(ps, RMSpropConfig{LR: 0.01, Alpha: 0.9, Eps: 1e-4, WeightDecay: 0.01, Momentum: 0.5, Centered: true})
			}},
		{Name: "rmsprop_plain", Class: "RMSprop", Kwargs: map[string]any{"lr": 0.01},
			make: func(ps []*autograd.Tensor) TorchOptimizer { return NewRMSprop(ps, DefaultRMSprop()) }},
		{Name: "adagrad", Class: "Adagrad", Kwargs: map[string]any{"lr": 0.1, "lr_decay": 0.1, "weight_decay": 0.01, "initial_accumulator_value": 0.1, "eps": 1e-6},
			make: func(ps []*autograd.Tensor) TorchOptimizer {
				return NewAdagrad(ps, AdagradConfig{LR: 0.1, LRDecay: 0.1, WeightDecay: 0.01, InitialAccumulatorValue: 0.1, Eps: 1e-6})
			}},
		{Name: "adamax", Class: "Adamax", Kwargs: map[string]any{"lr": 0.05, "betas": []float64{0.8, 0.9}, "eps": 1e-4, "weight_decay": 0.01},
			make: func(ps []*autograd.Tensor) TorchOptimizer {
				return NewAdamax(ps, AdamaxConfig{LR: 0.05, Beta1: 0.8, Beta2: 0.9, Eps: 1e-4, WeightDecay: 0.01})
			}},
		// β₂ = 0.9 rectifies from step 6 on: the eight steps take both branches.
		{Name: "radam", Class: "RAdam", Kwargs: map[string]any{"lr": 0.05, "betas": []float64{0.8, 0.9}, "eps": 1e-4, "weight_decay": 0.01},
			make: func(ps []*autograd.Tensor) TorchOptimizer {
				return NewRAdam(ps, RAdamConfig{LR: 0.05, Beta1: 0.8, Beta2: 0.9, Eps: 1e-4, WeightDecay: 0.01})
			}},
	}
}

// torchSpec is what the Python half reads.
type torchSpec struct {
	Cases  []torchCase   `json:"cases"`
	Params [][]float64   `json:"params"`
	Grads  [][][]float64 `json:"grads"` // [step][param][element]
	Resume int           `json:"resume"`
}

type torchResult struct {
	Trajectory     [][][]float64 `json:"trajectory"` // [step][param][element]
	ParamsAtResume [][]float64   `json:"params_at_resume"`
	Resumed        [][][]float64 `json:"resumed"`
}

func newParams(values [][]float64) []*autograd.Tensor {
	var ps []*autograd.Tensor
	for _, v := range values {
		ps = append(ps, autograd.New64(slices.Clone(v), len(v)).SetRequiresGrad(true)) // New64 keeps the slice
	}
	return ps
}

// stepAll runs steps [from, to) of opt on ps with spec's gradients and
// returns the parameters after each.
func stepAll(t *testing.T, opt Optimizer, ps []*autograd.Tensor, grads [][][]float64, from, to int) [][][]float64 {
	t.Helper()
	var out [][][]float64
	for k := from; k < to; k++ {
		for i, p := range ps {
			p.SetGrad(autograd.New64(grads[k][i], len(grads[k][i])))
		}
		if err := opt.Step(); err != nil {
			t.Fatal(err)
		}
		var now [][]float64
		for _, p := range ps {
			now = append(now, slices.Clone(p.Float64s()))
		}
		out = append(out, now)
	}
	return out
}

func compareTrajectories(t *testing.T, what string, got, want [][][]float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d steps, want %d", what, len(got), len(want))
	}
	for k := range want {
		for i := range want[k] {
			for j, w := range want[k][i] {
				if g := got[k][i][j]; !(math.Abs(g-w) <= 1e-10*max(1, math.Abs(w))) {
					t.Errorf("%s: step %d parameter %d element %d = %.17g, PyTorch's %.17g", what, k+1, i, j, g, w)
					return
				}
			}
		}
	}
}

// TestTorchOptimisers runs each optimiser in Go and in PyTorch 1.13 over
// the same eight steps (float64) and compares the parameters after every
// step; saves Go's state after three steps in PyTorch's layout and has
// PyTorch resume from it (optimizer.load_state_dict), and resumes Go from
// the state PyTorch saved there: both resumed runs must follow the
// uninterrupted ones. One python start does PyTorch's side of every case.
func TestTorchOptimisers(t *testing.T) {
	torchtest.Require(t)
	dir := t.TempDir()
	const steps, resume = 8, 3
	spec := torchSpec{Params: [][]float64{{0.5, -1.25, 2}, {0.25, -0.75}}, Resume: resume}
	for k := 1; k <= steps; k++ {
		var g [][]float64
		for i, p := range spec.Params {
			var row []float64
			for j := range p {
				row = append(row, refGrad(k, 3*i+j))
			}
			g = append(g, row)
		}
		spec.Grads = append(spec.Grads, g)
	}
	cases := torchCases()
	goTrajectories := map[string][][][]float64{}
	for ci := range cases {
		c := &cases[ci]
		ps := newParams(spec.Params)
		opt := c.make(ps)
		first := stepAll(t, opt, ps, spec.Grads, 0, resume)
		if err := SaveTorch(filepath.Join(dir, "go_"+c.Name+".pt"), opt); err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			c.GoParams = append(c.GoParams, slices.Clone(p.Float64s()))
		}
		goTrajectories[c.Name] = append(first, stepAll(t, opt, ps, spec.Grads, resume, steps)...)
	}
	spec.Cases = cases
	js, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "spec.json"), js, 0o644); err != nil {
		t.Fatal(err)
	}

	torchtest.Run(t, "testdata/torch_optim.py", dir)

	js, err = os.ReadFile(filepath.Join(dir, "torch.json"))
	if err != nil {
		t.Fatal(err)
	}
	var results map[string]torchResult
	if err := json.Unmarshal(js, &results); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		r, ok := results[c.Name]
		if !ok {
			t.Fatalf("no PyTorch result for %s", c.Name)
		}
		compareTrajectories(t, c.Name+" against PyTorch", goTrajectories[c.Name], r.Trajectory)
		compareTrajectories(t, c.Name+" resumed by PyTorch from Go's state", r.Resumed, goTrajectories[c.Name][resume:])
		ps := newParams(r.ParamsAtResume)
		opt := c.make(ps)
		if err := LoadTorch(filepath.Join(dir, "torch_"+c.Name+".pt"), opt); err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		compareTrajectories(t, fmt.Sprintf("%s resumed by Go from PyTorch's state", c.Name), stepAll(t, opt, ps, spec.Grads, resume, steps), r.Trajectory[resume:])
	}
}
