package optim

import (
	"math"
	"testing"

	"github.com/dlca/dlca/autograd"
)

// TestPyTorchSchedules checks each schedule's rates at steps 0, 1, ...
// against values worked out by hand from torch.optim.lr_scheduler's
// definitions (base rate 1 unless said).
func TestPyTorchSchedules(t *testing.T) {
	cases := []struct {
		name string
		s    Schedule
		base float64
		want []float64 // at steps 0, 1, 2, ...
	}{
		// Defaults: factor 1/3 rising by 2/15 a step to 1 at step 5.
		{"LinearLR default", NewLinearLR(), 1, []float64{1.0 / 3, 7.0 / 15, 9.0 / 15, 11.0 / 15, 13.0 / 15, 1, 1}},
		{"LinearLR down", LinearLR{StartFactor: 1, EndFactor: 0.5, TotalIters: 2}, 0.2, []float64{0.2, 0.15, 0.1, 0.1}},
		{"ConstantLR default", NewConstantLR(), 0.3, []float64{0.1, 0.1, 0.1, 0.1, 0.1, 0.3, 0.3}},
		// PyTorch's docstring example: total_iters 4, power 1, lr 0.001.
		{"PolynomialLR doc", PolynomialLR{TotalIters: 4, Power: 1}, 0.001, []float64{0.001, 0.00075, 0.0005, 0.00025, 0, 0}},
		{"PolynomialLR square", PolynomialLR{TotalIters: 4, Power: 2}, 1, []float64{1, 0.5625, 0.25, 0.0625, 0, 0}},
		// Milestones 2 and 4, one listed twice: 0.5, then 0.5³.
		{"MultiStepLR", MultiStepLR{Milestones: []int{4, 2, 4}, Gamma: 0.5}, 1, []float64{1, 1, 0.5, 0.5, 0.125, 0.125}},
		{"LambdaLR", LambdaLR{Lambda: func(s int) float64 { return 1 / float64(s+1) }}, 0.6, []float64{0.6, 0.3, 0.2, 0.15}},
		// ConstantLR(0.1, 2) for steps 0-2, then ExponentialLR(0.5)
		// restarting at 3, then StepLR from step 5.
		{"SequentialLR", SequentialLR{
			Schedules:  []Schedule{ConstantLR{Factor: 0.1, TotalIters: 2}, ExponentialLR{Gamma: 0.5}, StepLR{StepSize: 1, Gamma: 0.9}},
			Milestones: []int{3, 5},
		}, 1, []float64{0.1, 0.1, 1, 1, 0.5, 1, 0.9, 0.81}},
		// T0 2, TMult 1: cos over 2 steps: 1, (1+cos(π/2))/2 = 0.5, restart.
		{"warm restarts", CosineAnnealingWarmRestarts{T0: 2, TMult: 1}, 1, []float64{1, 0.5, 1, 0.5, 1}},
		// T0 1, TMult 2, Min 0.1: periods 1, 2, 4 starting at 0, 1, 3.
		{"warm restarts mult", CosineAnnealingWarmRestarts{T0: 1, TMult: 2, Min: 0.1}, 1, []float64{
			1, 1, 0.1 + 0.9*0.5, 1, 0.1 + 0.9*(1+math.Cos(math.Pi/4))/2, 0.1 + 0.9*0.5, 0.1 + 0.9*(1+math.Cos(3*math.Pi/4))/2, 1}},
	}
	for _, c := range cases {
		for step, w := range c.want {
			if got := c.s.LR(c.base, step); math.Abs(got-w) > 1e-12 {
				t.Errorf("%s at step %d = %.15g, want %.15g", c.name, step, got, w)
			}
		}
	}
}

func TestScheduleInvalidSettings(t *testing.T) {
	for name, f := range map[string]func(){
		"LinearLR start 0":     func() { LinearLR{StartFactor: 0, EndFactor: 1, TotalIters: 1}.LR(1, 0) },
		"ConstantLR factor 2":  func() { ConstantLR{Factor: 2, TotalIters: 1}.LR(1, 0) },
		"PolynomialLR 0 iters": func() { PolynomialLR{}.LR(1, 0) },
		"SequentialLR count":   func() { SequentialLR{Schedules: []Schedule{ExponentialLR{1}}, Milestones: []int{1}}.LR(1, 0) },
		"warm restarts T0 0":   func() { CosineAnnealingWarmRestarts{TMult: 1}.LR(1, 0) },
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

// TestReduceLROnPlateau follows PyTorch's rules by hand: patience 2, so
// the third epoch in a row without a significant improvement cuts the
// rate by factor 0.5, then cooldown 1 epoch does not count.
func TestReduceLROnPlateau(t *testing.T) {
	p := []*autograd.Tensor{autograd.New64([]float64{1}, 1)}
	opt := NewSGD(p, SGDConfig{LR: 1})
	r := NewReduceLROnPlateau(opt)
	r.Factor, r.Patience, r.Cooldown, r.MinLR = 0.5, 2, 1, []float64{0.2}
	// rel threshold 1e-4: 0.99995 is not better than 1 (needs < 0.9999).
	metrics := []float64{1, 0.99995, 1.2, 1.1, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1, 1, 1, 1}
	want := []float64{
		1,    // best 1
		1,    // bad 1
		1,    // bad 2
		0.5,  // bad 3 > 2: cut; cooldown 1
		0.5,  // better (0.5): bad 0; cooldown ends, bad 0
		0.5,  // bad 1
		0.5,  // bad 2
		0.25, // bad 3: cut; cooldown 1
		0.25, // bad 1, cooldown: bad 0
		0.25, // bad 1
		0.25, // bad 2
		0.2,  // bad 3: cut to max(0.125, min_lr 0.2)
		0.2,  // cooldown
		0.2,  // bad 1 (at the floor, later cuts change nothing)
	}
	for i, m := range metrics {
		if err := r.Step(m); err != nil {
			t.Fatal(err)
		}
		if got := opt.GroupLR(0); math.Abs(got-want[i]) > 1e-15 {
			t.Fatalf("epoch %d (metric %v): lr %v, want %v", i, m, got, want[i])
		}
	}

	// Mode max with an absolute threshold 0.1: 1.25 is no gain on 1.2 (needs > 1.3).
	opt = NewSGD(p, SGDConfig{LR: 1})
	r = NewReduceLROnPlateau(opt)
	r.Max, r.ThresholdMode, r.Threshold, r.Patience = true, ThresholdAbs, 0.1, 0
	for i, m := range []float64{1, 1.2, 1.25} {
		if err := r.Step(m); err != nil {
			t.Fatal(err)
		}
		want := []float64{1, 1, 0.1}[i] // the third is bad 1 > patience 0
		if got := opt.GroupLR(0); math.Abs(got-want) > 1e-15 {
			t.Fatalf("max mode epoch %d: lr %v, want %v", i, got, want)
		}
	}
	r.Factor = 1
	if err := r.Step(2); err == nil {
		t.Error("factor 1 accepted")
	}
}
