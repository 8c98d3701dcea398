package gpu

import (
	"fmt"
	"math"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/optim"
)

// optimCases are the optimisers whose steps on the GPU must match the CPU's.
var optimCases = []struct {
	name string
	make func([]*autograd.Tensor) optim.Optimizer
}{
	{"SGD", func(ps []*autograd.Tensor) optim.Optimizer { return optim.NewSGD(ps, optim.SGDConfig{LR: 0.1}) }},
	{"SGD momentum decay", func(ps []*autograd.Tensor) optim.Optimizer {
		return optim.NewSGD(ps, optim.SGDConfig{LR: 0.1, Momentum: 0.9, Dampening: 0.1, WeightDecay: 0.01})
	}},
	{"SGD Nesterov", func(ps []*autograd.Tensor) optim.Optimizer {
		return optim.NewSGD(ps, optim.SGDConfig{LR: 0.1, Momentum: 0.9, Nesterov: true})
	}},
	{"Adam", func(ps []*autograd.Tensor) optim.Optimizer {
		c := optim.DefaultAdam()
		c.WeightDecay = 0.01
		return optim.NewAdam(ps, c)
	}},
	{"AdamW AMSGrad", func(ps []*autograd.Tensor) optim.Optimizer {
		c := optim.DefaultAdamW()
		c.LR, c.AMSGrad = 0.05, true
		return optim.NewAdamW(ps, c)
	}},
	// The optimisers composed of device ops (optim's elementwise rules).
	{"RMSprop centered momentum", func(ps []*autograd.Tensor) optim.Optimizer {
		return optim.NewRMSprop(ps, optim.RMSpropConfig{LR: 0.01, Alpha: 0.9, Eps: 1e-3, WeightDecay: 0.01, Momentum: 0.5, Centered: true})
	}},
	{"Adagrad", func(ps []*autograd.Tensor) optim.Optimizer {
		return optim.NewAdagrad(ps, optim.AdagradConfig{LR: 0.1, LRDecay: 0.1, WeightDecay: 0.01, InitialAccumulatorValue: 0.1, Eps: 1e-10})
	}},
	{"Adamax", func(ps []*autograd.Tensor) optim.Optimizer {
		c := optim.DefaultAdamax()
		c.WeightDecay = 0.01
		return optim.NewAdamax(ps, c)
	}},
	{"NAdam", func(ps []*autograd.Tensor) optim.Optimizer {
		c := optim.DefaultNAdam()
		c.WeightDecay = 0.01
		return optim.NewNAdam(ps, c)
	}},
	{"RAdam", func(ps []*autograd.Tensor) optim.Optimizer {
		return optim.NewRAdam(ps, optim.RAdamConfig{LR: 0.01, Beta1: 0.8, Beta2: 0.9, Eps: 1e-8, WeightDecay: 0.01})
	}},
}

// clipCases transform the gradients before a step.
var clipCases = []struct {
	name string
	clip func(t *testing.T, ps []*autograd.Tensor)
}{
	{"no clipping", func(*testing.T, []*autograd.Tensor) {}},
	{"ClipGradValue", func(_ *testing.T, ps []*autograd.Tensor) { optim.ClipGradValue(ps, 0.3) }},
	{"ClipGradNorm 2", func(t *testing.T, ps []*autograd.Tensor) { clipNorm(t, ps, 2) }},
	{"ClipGradNorm 1", func(t *testing.T, ps []*autograd.Tensor) { clipNorm(t, ps, 1) }},
	{"ClipGradNorm Inf", func(t *testing.T, ps []*autograd.Tensor) { clipNorm(t, ps, math.Inf(1)) }},
}

func clipNorm(t *testing.T, ps []*autograd.Tensor, p float64) {
	t.Helper()
	if _, err := optim.ClipGradNorm(ps, 0.5, p); err != nil {
		t.Fatal(err)
	}
}

// TestOptimParity takes three steps of every optimiser, after each kind of
// clipping, from the same parameters and gradients on both devices, and
// compares the parameters, and the saved state (moments, momentum).
func TestOptimParity(t *testing.T) {
	testAutograd(t)
	shapes := [][]int{{7}, {65, 3}, {}, {0}}
	for _, oc := range optimCases {
		for _, cc := range clipCases {
			t.Run(oc.name+"/"+cc.name, func(t *testing.T) {
				results := map[string][]*autograd.Tensor{}
				states := map[string]optim.State{}
				forEachDevice(t, func(t *testing.T, dev autograd.Device) {
					var ps []*autograd.Tensor
					for i, s := range shapes {
						p, err := randTensor(uint64(i), -1, 1, s...).To(dev)
						if err != nil {
							t.Fatal(err)
						}
						ps = append(ps, p.SetRequiresGrad(true))
					}
					o := oc.make(ps)
					for step := range 3 {
						for i, p := range ps {
							g, err := randTensor(uint64(100*step+i), -2, 2, shapes[i]...).To(dev)
							if err != nil {
								t.Fatal(err)
							}
							p.SetGrad(g)
						}
						cc.clip(t, ps)
						if err := o.Step(); err != nil {
							t.Fatal(err)
						}
					}
					for _, p := range ps {
						results[t.Name()] = append(results[t.Name()], toCPU(t, p))
					}
					if s, ok := o.(interface{ State() optim.State }); ok {
						states[t.Name()] = s.State()
					}
				})
				cpu, gpu := results[t.Name()+"/cpu"], results[t.Name()+"/gpu"]
				if gpu == nil {
					return // skipped
				}
				for i := range cpu {
					for _, e := range differences(fmt.Sprintf("parameter %d", i), gpu[i], cpu[i], tolElementwise) {
						t.Error(e)
					}
				}
				sc, sg := states[t.Name()+"/cpu"], states[t.Name()+"/gpu"]
				for name, bufs := range sc.Buffers {
					for i, b := range bufs {
						if len(b) != len(sg.Buffers[name][i]) {
							t.Errorf("state %s[%d]: %d values on the GPU, %d on the CPU", name, i, len(sg.Buffers[name][i]), len(b))
							continue
						}
						for j := range b {
							if d := math.Abs(b[j] - sg.Buffers[name][i][j]); d > tolElementwise*max(1, math.Abs(b[j])) {
								t.Errorf("state %s[%d][%d]: %v on the GPU, %v on the CPU", name, i, j, sg.Buffers[name][i][j], b[j])
								break
							}
						}
					}
				}
			})
		}
	}
}

// TestRAdamRectifiedParity takes seven RAdam steps on both devices, so
// that the rectified update (from step 6 with β₂ = 0.9) runs on the GPU
// too; TestOptimParity's three steps take only the unrectified one.
func TestRAdamRectifiedParity(t *testing.T) {
	testAutograd(t)
	results := map[string]*autograd.Tensor{}
	forEachDevice(t, func(t *testing.T, dev autograd.Device) {
		p, err := randTensor(1, -1, 1, 33).To(dev)
		if err != nil {
			t.Fatal(err)
		}
		p.SetRequiresGrad(true)
		o := optim.NewRAdam([]*autograd.Tensor{p}, optim.RAdamConfig{LR: 0.01, Beta1: 0.8, Beta2: 0.9, Eps: 1e-8})
		for step := range 7 {
			g, err := randTensor(uint64(50+step), -2, 2, 33).To(dev)
			if err != nil {
				t.Fatal(err)
			}
			p.SetGrad(g)
			if err := o.Step(); err != nil {
				t.Fatal(err)
			}
		}
		results[t.Name()] = toCPU(t, p)
	})
	cpu, gpu := results[t.Name()+"/cpu"], results[t.Name()+"/gpu"]
	if gpu == nil {
		return // skipped
	}
	for _, e := range differences("parameter", gpu, cpu, tolElementwise) {
		t.Error(e)
	}
}
