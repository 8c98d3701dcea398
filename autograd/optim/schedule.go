package optim

import (
	"fmt"
	"math"
)

// Schedule maps a parameter group's initial learning rate (its base) and a
// step count (iterations or epochs, as the caller counts) to the group's
// learning rate at that step, as torch.optim.lr_scheduler's get_lr does for
// each base_lr.
type Schedule interface {
	LR(base float64, step int) float64
}

// MomentumSchedule is a Schedule that also sets each group's momentum
// (SGD's momentum, Adam's beta1): ok is false when it does not at this
// schedule's settings.
type MomentumSchedule interface {
	Schedule
	Momentum(step int) (m float64, ok bool)
}

// SetLR sets the learning rate of each of opt's groups to s's value at step
// from the group's initial learning rate, as a PyTorch scheduler's step. When
// s is a MomentumSchedule that sets momentum, it sets each group's momentum
// too; opt must then be a MomentumSetter (else SetLR panics, as PyTorch
// raises on an optimiser without momentum).
func SetLR(opt LRSetter, s Schedule, step int) {
	for i := range opt.NumGroups() {
		opt.SetGroupLR(i, s.LR(opt.InitialLR(i), step))
	}
	ms, ok := s.(MomentumSchedule)
	if !ok {
		return
	}
	m, ok := ms.Momentum(step)
	if !ok {
		return
	}
	mo, ok := opt.(MomentumSetter)
	if !ok {
		panic(fmt.Sprintf("optim: SetLR: %T cycles momentum but %T has none", s, opt))
	}
	for i := range opt.NumGroups() {
		mo.SetGroupMomentum(i, m)
	}
}

// StepLR multiplies the base rate by Gamma every StepSize steps, as
// torch.optim.lr_scheduler.StepLR(step_size, gamma).
type StepLR struct {
	StepSize int
	Gamma    float64
}

// LR returns base·Gamma^⌊step/StepSize⌋.
func (s StepLR) LR(base float64, step int) float64 {
	return base * math.Pow(s.Gamma, float64(step/max(s.StepSize, 1)))
}

// ExponentialLR multiplies the base rate by Gamma every step, as
// torch.optim.lr_scheduler.ExponentialLR(gamma).
type ExponentialLR struct {
	Gamma float64
}

// LR returns base·Gamma^step.
func (s ExponentialLR) LR(base float64, step int) float64 {
	return base * math.Pow(s.Gamma, float64(step))
}

// CosineAnnealingLR follows half a cosine from the base rate down to Min
// over TMax steps, as torch.optim.lr_scheduler.CosineAnnealingLR(T_max,
// eta_min) in its closed form (without restarts; past TMax the cosine
// continues). Min is shared by every group, as eta_min.
type CosineAnnealingLR struct {
	Min  float64
	TMax int
}

// LR returns Min + (base-Min)·(1 + cos(π·step/TMax))/2.
func (s CosineAnnealingLR) LR(base float64, step int) float64 {
	return s.Min + (base-s.Min)*(1+math.Cos(math.Pi*float64(step)/float64(max(s.TMax, 1))))/2
}

// Anneal is how OneCycleLR goes from one value to the next in a phase, as
// anneal_strategy.
type Anneal int

const (
	AnnealCos    Anneal = iota // "cos": along half a cosine
	AnnealLinear               // "linear": along a straight line
)

// OneCycleLR is torch.optim.lr_scheduler.OneCycleLR. Each group's base
// (initial) learning rate is its max_lr (as a list of max_lr per group in
// PyTorch): the rate goes from base/DivFactor up to base over the first
// PctStart of TotalSteps, then down to base/(DivFactor·FinalDivFactor) at
// the last step. With ThreePhase it comes back down to base/DivFactor
// symmetrically first and then falls to the minimum. With CycleMomentum
// the momentum goes the other way, from MaxMomentum down to BaseMomentum
// while the rate rises and back (staying at MaxMomentum in the third
// phase); SetLR sets it on every group (beta1 for Adam).
//
// Every field is used as given: start from NewOneCycleLR for PyTorch's
// defaults. LR panics on a zero or negative TotalSteps or DivFactor or
// FinalDivFactor, or on PctStart outside [0, 1], as PyTorch raises; unlike
// PyTorch, steps past TotalSteps extrapolate the last phase.
type OneCycleLR struct {
	TotalSteps     int
	PctStart       float64
	Anneal         Anneal
	DivFactor      float64
	FinalDivFactor float64
	ThreePhase     bool
	CycleMomentum  bool
	BaseMomentum   float64
	MaxMomentum    float64
}

// NewOneCycleLR returns OneCycleLR over totalSteps with PyTorch's defaults:
// pct_start 0.3, cosine annealing, div_factor 25, final_div_factor 1e4, two
// phases, momentum cycled between 0.85 and 0.95.
func NewOneCycleLR(totalSteps int) OneCycleLR {
	return OneCycleLR{TotalSteps: totalSteps, PctStart: 0.3, Anneal: AnnealCos, DivFactor: 25, FinalDivFactor: 1e4,
		CycleMomentum: true, BaseMomentum: 0.85, MaxMomentum: 0.95}
}

// oneCyclePhase is one phase of OneCycleLR: it ends at step end (a
// fraction, as PyTorch computes it), going from the start to the end of the
// rate and of the momentum.
type oneCyclePhase struct {
	end              float64
	startLR, endLR   float64
	startMom, endMom float64
}

// at returns the phase and the fraction of it done at step, as PyTorch's
// get_lr walks the phases, for a group whose max_lr is maxLR.
func (s OneCycleLR) at(maxLR float64, step int) (oneCyclePhase, float64) {
	if s.TotalSteps <= 0 || s.DivFactor <= 0 || s.FinalDivFactor <= 0 || !(s.PctStart >= 0 && s.PctStart <= 1) {
		panic(fmt.Sprintf("optim: invalid OneCycleLR %+v (start from NewOneCycleLR)", s))
	}
	initial := maxLR / s.DivFactor
	final := initial / s.FinalDivFactor
	total, pct := float64(s.TotalSteps), s.PctStart
	lo, hi := s.BaseMomentum, s.MaxMomentum
	phases := []oneCyclePhase{
		{pct*total - 1, initial, maxLR, hi, lo},
		{total - 1, maxLR, final, lo, hi},
	}
	if s.ThreePhase {
		phases = []oneCyclePhase{
			{pct*total - 1, initial, maxLR, hi, lo},
			{2*pct*total - 2, maxLR, initial, lo, hi},
			{total - 1, initial, final, hi, hi},
		}
	}
	start, t := 0.0, float64(step)
	for i, ph := range phases {
		if t <= ph.end || i == len(phases)-1 {
			return ph, (t - start) / (ph.end - start)
		}
		start = ph.end
	}
	panic("unreachable")
}

func (s OneCycleLR) anneal(start, end, pct float64) float64 {
	if s.Anneal == AnnealLinear {
		return (end-start)*pct + start
	}
	return end + (start-end)/2*(math.Cos(math.Pi*pct)+1)
}

// LR returns the one-cycle learning rate at step (0-based) of a group whose
// max_lr is base.
func (s OneCycleLR) LR(base float64, step int) float64 {
	ph, pct := s.at(base, step)
	return s.anneal(ph.startLR, ph.endLR, pct)
}

// Momentum returns the momentum at step, and whether s cycles it.
func (s OneCycleLR) Momentum(step int) (float64, bool) {
	if !s.CycleMomentum {
		return 0, false
	}
	ph, pct := s.at(1, step)
	return s.anneal(ph.startMom, ph.endMom, pct), true
}
