package optim

import (
	"math"
	"testing"

	"github.com/dlca/dlca/autograd"
)

func TestSchedules(t *testing.T) {
	cases := []struct {
		name  string
		s     Schedule
		base  float64
		steps []int
		want  []float64
	}{
		{"step", StepLR{StepSize: 2, Gamma: 0.5}, 0.1, []int{0, 1, 2, 3, 4}, []float64{0.1, 0.1, 0.05, 0.05, 0.025}},
		{"exponential", ExponentialLR{Gamma: 0.9}, 1, []int{0, 1, 3}, []float64{1, 0.9, 0.729}},
		{"cosine", CosineAnnealingLR{Min: 0.1, TMax: 10}, 1, []int{0, 5, 10}, []float64{1, 0.55, 0.1}},
	}
	for _, c := range cases {
		for i, st := range c.steps {
			near(t, c.name, c.s.LR(c.base, st), c.want[i], 1e-12)
		}
	}
}

// TestOneCycle checks OneCycleLR against torch.optim.lr_scheduler.
// OneCycleLR's formulas worked by hand, max_lr 1, total_steps 101,
// pct_start 0.3 (phase one ends at step 0.3·101-1 = 29.3), div 25, final
// div 1e4, momentum between 0.85 and 0.95:
//
//	cos:    lr(s) = end + (start-end)/2·(cos(π·pct)+1)
//	linear: lr(s) = start + (end-start)·pct
//
// Two phases: step 0 is 1/25 with momentum 0.95; step 100 is 1/25/1e4 with
// momentum 0.95. Step 10 (pct 10/29.3): cos gives 1 + (0.04-1)/2·(cos(π·10/29.3)+1)
// and momentum 0.85 + 0.05·(cos(π·10/29.3)+1); linear gives 0.04 + 0.96·10/29.3.
// Step 60 in phase two (pct (60-29.3)/(100-29.3)).
// Three phases end at 29.3, 58.6 and 100: step 40 is going back down,
// linear: 1 + (0.04-1)·(40-29.3)/29.3, momentum 0.85 + 0.1·(40-29.3)/29.3;
// step 80: 0.04 + (4e-6-0.04)·(80-58.6)/(100-58.6), momentum 0.95.
func TestOneCycle(t *testing.T) {
	cosP := func(pct float64) float64 { return (math.Cos(math.Pi*pct) + 1) / 2 }
	lin := NewOneCycleLR(101)
	lin.Anneal = AnnealLinear
	three := lin
	three.ThreePhase = true
	threeCos := NewOneCycleLR(101)
	threeCos.ThreePhase = true
	cases := []struct {
		name    string
		s       OneCycleLR
		step    int
		lr, mom float64
	}{
		{"cos start", NewOneCycleLR(101), 0, 0.04, 0.95},
		{"cos rising", NewOneCycleLR(101), 10, 1 + (0.04-1)*cosP(10/29.3), 0.85 + 0.1*cosP(10/29.3)},
		{"cos falling", NewOneCycleLR(101), 60, 4e-6 + (1-4e-6)*cosP(30.7/70.7), 0.95 + (0.85-0.95)*cosP(30.7/70.7)},
		{"cos end", NewOneCycleLR(101), 100, 4e-6, 0.95},
		{"linear rising", lin, 10, 0.04 + 0.96*10/29.3, 0.95 - 0.1*10/29.3},
		{"linear falling", lin, 60, 1 + (4e-6-1)*30.7/70.7, 0.85 + 0.1*30.7/70.7},
		{"three phases, second", three, 40, 1 + (0.04-1)*10.7/29.3, 0.85 + 0.1*10.7/29.3},
		{"three phases, third", three, 80, 0.04 + (4e-6-0.04)*21.4/41.4, 0.95},
		{"three phases, cos", threeCos, 80, 4e-6 + (0.04-4e-6)*cosP(21.4/41.4), 0.95},
	}
	for _, c := range cases {
		near(t, c.name+" lr", c.s.LR(1, c.step), c.lr, 1e-12)
		m, ok := c.s.Momentum(c.step)
		if !ok {
			t.Fatalf("%s: momentum not cycled", c.name)
		}
		near(t, c.name+" momentum", m, c.mom, 1e-12)
	}
	off := NewOneCycleLR(101)
	off.CycleMomentum = false
	if _, ok := off.Momentum(10); ok {
		t.Fatal("momentum cycled with CycleMomentum false")
	}
}

// TestSetLRGroups: each group's rate is scaled from its own initial rate,
// as PyTorch's schedulers do from base_lrs, and OneCycleLR cycles every
// group's beta1.
func TestSetLRGroups(t *testing.T) {
	a, b := param([]float64{0}, []float64{1}), param([]float64{0}, []float64{1})
	opt := NewAdamGroups([]AdamGroup{
		{Params: []*autograd.Tensor{a}, AdamConfig: adamConfig(0.1, 0)},
		{Params: []*autograd.Tensor{b}, AdamConfig: adamConfig(0.01, 0)},
	})
	SetLR(opt, StepLR{StepSize: 1, Gamma: 0.5}, 2)
	near(t, "group 0", opt.GroupLR(0), 0.025, 1e-15)
	near(t, "group 1", opt.GroupLR(1), 0.0025, 1e-15)
	SetLR(opt, StepLR{StepSize: 1, Gamma: 0.5}, 1) // from the initial rates, not the current ones
	near(t, "group 0 again", opt.GroupLR(0), 0.05, 1e-15)

	SetLR(opt, NewOneCycleLR(101), 0)
	near(t, "one-cycle group 1", opt.GroupLR(1), 0.01/25, 1e-15)
	for i := range 2 {
		near(t, "beta1", opt.groups[i].cfg.Beta1, 0.95, 0)
	}
	sgd := NewSGD([]*autograd.Tensor{a}, SGDConfig{LR: 1})
	SetLR(sgd, NewOneCycleLR(101), 29)
	if m := sgd.groups[0].cfg.Momentum; math.Abs(m-0.85) > 1e-3 {
		t.Fatalf("SGD momentum near the peak %v, want about 0.85", m)
	}
}
