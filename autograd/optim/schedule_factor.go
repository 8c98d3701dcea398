package optim

import (
	"fmt"
	"math"
	"sort"
)

// The schedules below are torch.optim.lr_scheduler's in their closed form
// (_get_closed_form_lr, or get_lr where that is already one): PyTorch's
// step() computes most of them in a chainable form, from the previous rate,
// which is the same function of the step up to rounding. Each panics on
// settings PyTorch refuses.

// LinearLR scales the base rate by a factor going linearly from
// StartFactor to EndFactor over TotalIters steps and staying there, as
// torch.optim.lr_scheduler.LinearLR(start_factor, end_factor, total_iters).
// Start from NewLinearLR for PyTorch's defaults.
type LinearLR struct {
	StartFactor, EndFactor float64
	TotalIters             int
}

// NewLinearLR returns LinearLR with PyTorch's defaults: start factor 1/3,
// end factor 1, over 5 steps.
func NewLinearLR() LinearLR { return LinearLR{StartFactor: 1.0 / 3, EndFactor: 1, TotalIters: 5} }

// LR returns base·(StartFactor + (EndFactor-StartFactor)·min(step, TotalIters)/TotalIters).
func (s LinearLR) LR(base float64, step int) float64 {
	if !(s.StartFactor > 0 && s.StartFactor <= 1 && s.EndFactor >= 0 && s.EndFactor <= 1) || s.TotalIters <= 0 {
		panic(fmt.Sprintf("optim: invalid LinearLR %+v: factors in (0, 1] and [0, 1], TotalIters > 0 (start from NewLinearLR)", s))
	}
	return base * (s.StartFactor + (s.EndFactor-s.StartFactor)*float64(min(s.TotalIters, step))/float64(s.TotalIters))
}

// ConstantLR scales the base rate by Factor for the first TotalIters steps,
// then leaves it, as torch.optim.lr_scheduler.ConstantLR(factor,
// total_iters). Start from NewConstantLR for PyTorch's defaults.
type ConstantLR struct {
	Factor     float64
	TotalIters int
}

// NewConstantLR returns ConstantLR with PyTorch's defaults: factor 1/3
// for 5 steps.
func NewConstantLR() ConstantLR { return ConstantLR{Factor: 1.0 / 3, TotalIters: 5} }

// LR returns base·Factor before step TotalIters, base from then on.
func (s ConstantLR) LR(base float64, step int) float64 {
	if !(s.Factor >= 0 && s.Factor <= 1) {
		panic(fmt.Sprintf("optim: invalid ConstantLR %+v: Factor must be in [0, 1]", s))
	}
	if step >= s.TotalIters {
		return base
	}
	return base * s.Factor
}

// PolynomialLR decays the base rate to 0 over TotalIters steps along
// (1 - step/TotalIters)^Power, as torch.optim.lr_scheduler.PolynomialLR
// (total_iters, power; PyTorch's defaults are 5 and 1).
type PolynomialLR struct {
	TotalIters int
	Power      float64
}

// LR returns base·(1 - min(step, TotalIters)/TotalIters)^Power.
func (s PolynomialLR) LR(base float64, step int) float64 {
	if s.TotalIters <= 0 {
		panic(fmt.Sprintf("optim: invalid PolynomialLR %+v: TotalIters must be positive", s))
	}
	return base * math.Pow(1-float64(min(s.TotalIters, step))/float64(s.TotalIters), s.Power)
}

// MultiStepLR multiplies the base rate by Gamma at each milestone, as
// torch.optim.lr_scheduler.MultiStepLR(milestones, gamma) (PyTorch's
// default gamma is 0.1). A milestone listed twice counts twice, as there.
type MultiStepLR struct {
	Milestones []int
	Gamma      float64
}

// LR returns base·Gamma^(the number of milestones ≤ step).
func (s MultiStepLR) LR(base float64, step int) float64 {
	n := 0
	for _, m := range s.Milestones {
		if m <= step {
			n++
		}
	}
	return base * math.Pow(s.Gamma, float64(n))
}

// LambdaLR scales the base rate by a function of the step, as
// torch.optim.lr_scheduler.LambdaLR(lr_lambda) with one function for every
// group.
type LambdaLR struct {
	Lambda func(step int) float64
}

// LR returns base·Lambda(step).
func (s LambdaLR) LR(base float64, step int) float64 { return base * s.Lambda(step) }

// SequentialLR runs Schedules one after another, switching at Milestones
// (one fewer than the schedules), each restarting from step 0, as
// torch.optim.lr_scheduler.SequentialLR(schedulers, milestones): at a step
// s with k milestones ≤ s, the rate is Schedules[k] at s - Milestones[k-1].
type SequentialLR struct {
	Schedules  []Schedule
	Milestones []int
}

// LR returns the rate of the schedule in force at step.
func (s SequentialLR) LR(base float64, step int) float64 {
	if len(s.Milestones) != len(s.Schedules)-1 || !sort.IntsAreSorted(s.Milestones) {
		panic(fmt.Sprintf("optim: SequentialLR: %d schedules need %d milestones in order; got %v", len(s.Schedules), len(s.Schedules)-1, s.Milestones))
	}
	k := sort.Search(len(s.Milestones), func(i int) bool { return s.Milestones[i] > step }) // bisect_right
	if k == 0 {
		return s.Schedules[0].LR(base, step)
	}
	return s.Schedules[k].LR(base, step-s.Milestones[k-1])
}

// CosineAnnealingWarmRestarts follows half a cosine from the base rate
// down to Min over T0 steps, then restarts, each period TMult times the
// last, as torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(T_0,
// T_mult, eta_min) stepped once per step (PyTorch's defaults: TMult 1, Min
// 0). Fractional epochs (PyTorch's step(epoch + i/iters)) are not taken.
type CosineAnnealingWarmRestarts struct {
	T0, TMult int
	Min       float64
}

// LR returns Min + (base-Min)·(1 + cos(π·Tcur/Ti))/2, with Ti the current
// period and Tcur the steps into it.
func (s CosineAnnealingWarmRestarts) LR(base float64, step int) float64 {
	if s.T0 <= 0 || s.TMult < 1 || step < 0 {
		panic(fmt.Sprintf("optim: invalid CosineAnnealingWarmRestarts %+v at step %d: T0 > 0, TMult ≥ 1, step ≥ 0", s, step))
	}
	cur, period := step, s.T0
	if s.TMult == 1 {
		cur %= period
	}
	for cur >= period { // PyTorch's step(): T_cur -= T_i; T_i *= T_mult
		cur -= period
		period *= s.TMult
	}
	return s.Min + (base-s.Min)*(1+math.Cos(math.Pi*float64(cur)/float64(period)))/2
}
