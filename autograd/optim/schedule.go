package optim

import "math"

// Schedule maps a step count (iterations or epochs, as the caller counts)
// to a learning rate.
type Schedule interface {
	LR(step int) float64
}

// SetLR sets opt's learning rate to s's value at step.
func SetLR(opt LRSetter, s Schedule, step int) { opt.SetLR(s.LR(step)) }

// StepLR multiplies Base by Gamma every StepSize steps, as
// torch.optim.lr_scheduler.StepLR.
type StepLR struct {
	Base     float64
	StepSize int
	Gamma    float64
}

// LR returns Base·Gamma^⌊step/StepSize⌋.
func (s StepLR) LR(step int) float64 {
	return s.Base * math.Pow(s.Gamma, float64(step/max(s.StepSize, 1)))
}

// ExponentialLR multiplies Base by Gamma every step.
type ExponentialLR struct {
	Base  float64
	Gamma float64
}

// LR returns Base·Gamma^step.
func (s ExponentialLR) LR(step int) float64 { return s.Base * math.Pow(s.Gamma, float64(step)) }

// CosineAnnealingLR follows half a cosine from Base down to Min over TMax
// steps, as torch.optim.lr_scheduler.CosineAnnealingLR (without restarts;
// past TMax the cosine continues).
type CosineAnnealingLR struct {
	Base float64
	Min  float64
	TMax int
}

// LR returns Min + (Base-Min)·(1 + cos(π·step/TMax))/2.
func (s CosineAnnealingLR) LR(step int) float64 {
	return s.Min + (s.Base-s.Min)*(1+math.Cos(math.Pi*float64(step)/float64(max(s.TMax, 1))))/2
}

// OneCycleLR is torch.optim.lr_scheduler.OneCycleLR with cosine annealing:
// from MaxLR/DivFactor up to MaxLR over the first PctStart of TotalSteps,
// then down to MaxLR/(DivFactor·FinalDivFactor) at the last step. Zero
// PctStart, DivFactor and FinalDivFactor select PyTorch's defaults (0.3, 25,
// 1e4).
type OneCycleLR struct {
	MaxLR          float64
	TotalSteps     int
	PctStart       float64
	DivFactor      float64
	FinalDivFactor float64
}

// LR returns the one-cycle learning rate at step (0-based).
func (s OneCycleLR) LR(step int) float64 {
	pct, div, final := s.PctStart, s.DivFactor, s.FinalDivFactor
	if pct == 0 {
		pct = 0.3
	}
	if div == 0 {
		div = 25
	}
	if final == 0 {
		final = 1e4
	}
	initial := s.MaxLR / div
	end1 := pct*float64(s.TotalSteps) - 1
	end2 := float64(s.TotalSteps) - 1
	t := float64(step)
	if t <= end1 {
		return cosAnneal(initial, s.MaxLR, t/end1)
	}
	return cosAnneal(s.MaxLR, initial/final, (t-end1)/(end2-end1))
}

// cosAnneal goes from start (pct 0) to end (pct 1) along half a cosine.
func cosAnneal(start, end, pct float64) float64 {
	return end + (start-end)/2*(math.Cos(math.Pi*pct)+1)
}
