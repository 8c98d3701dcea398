package optim

import (
	"fmt"
	"math"
)

// ThresholdMode is how ReduceLROnPlateau measures a significant
// improvement, as threshold_mode.
type ThresholdMode int

const (
	ThresholdRel ThresholdMode = iota // "rel": by a fraction of the best value
	ThresholdAbs                      // "abs": by an amount
)

// ReduceLROnPlateau cuts the learning rates when a metric stops improving,
// as torch.optim.lr_scheduler.ReduceLROnPlateau: each Step takes the epoch's
// metric; after more than Patience epochs in a row without a significant
// improvement on the best value (smaller with Min, larger with Max, by
// Threshold relative or absolute), every group's rate becomes
// max(lr·Factor, MinLR[group]) unless that changes it by Eps or less, and
// then Cooldown epochs pass without counting. Build it with
// NewReduceLROnPlateau, which holds PyTorch's defaults, and change what
// differs before the first Step.
type ReduceLROnPlateau struct {
	Opt LRSetter
	// Max says the metric should grow (mode "max"); by default it should
	// shrink (mode "min").
	Max           bool
	Factor        float64
	Patience      int
	Threshold     float64
	ThresholdMode ThresholdMode
	Cooldown      int
	// MinLR is each group's floor; one value applies to every group.
	MinLR []float64
	Eps   float64

	best                   float64
	started                bool
	badEpochs, coolingLeft int
}

// NewReduceLROnPlateau returns ReduceLROnPlateau over opt with PyTorch's
// defaults: mode min, factor 0.1, patience 10, threshold 1e-4 relative, no
// cooldown, min_lr 0, eps 1e-8.
func NewReduceLROnPlateau(opt LRSetter) *ReduceLROnPlateau {
	return &ReduceLROnPlateau{Opt: opt, Factor: 0.1, Patience: 10, Threshold: 1e-4, MinLR: []float64{0}, Eps: 1e-8}
}

// Step takes one epoch's metric and reduces the learning rates when it is
// time. It returns an error, changing nothing, on settings PyTorch refuses
// (Factor ≥ 1, a MinLR list of another length than the groups).
func (r *ReduceLROnPlateau) Step(metric float64) error {
	if !(r.Factor < 1) {
		return fmt.Errorf("optim: ReduceLROnPlateau: Factor %v should be < 1", r.Factor)
	}
	if n := r.Opt.NumGroups(); len(r.MinLR) != 1 && len(r.MinLR) != n {
		return fmt.Errorf("optim: ReduceLROnPlateau: %d MinLR values for %d parameter groups; give one or one per group", len(r.MinLR), n)
	}
	if !r.started {
		r.best, r.started = math.Inf(1), true
		if r.Max {
			r.best = math.Inf(-1)
		}
	}
	if r.better(metric) {
		r.best, r.badEpochs = metric, 0
	} else {
		r.badEpochs++
	}
	if r.coolingLeft > 0 {
		r.coolingLeft--
		r.badEpochs = 0 // epochs in cooldown do not count
	}
	if r.badEpochs > r.Patience {
		r.reduce()
		r.coolingLeft, r.badEpochs = r.Cooldown, 0
	}
	return nil
}

// better reports whether a is a significant improvement on the best value
// (false for NaN, as PyTorch's comparisons are).
func (r *ReduceLROnPlateau) better(a float64) bool {
	switch {
	case !r.Max && r.ThresholdMode == ThresholdRel:
		return a < r.best*(1-r.Threshold)
	case !r.Max:
		return a < r.best-r.Threshold
	case r.ThresholdMode == ThresholdRel:
		return a > r.best*(r.Threshold+1)
	default:
		return a > r.best+r.Threshold
	}
}

func (r *ReduceLROnPlateau) reduce() {
	for i := range r.Opt.NumGroups() {
		floor := r.MinLR[0]
		if len(r.MinLR) > 1 {
			floor = r.MinLR[i]
		}
		old := r.Opt.GroupLR(i)
		if lr := max(old*r.Factor, floor); old-lr > r.Eps {
			r.Opt.SetGroupLR(i, lr)
		}
	}
}

// NumBadEpochs returns the epochs since the last significant improvement
// that count towards Patience.
func (r *ReduceLROnPlateau) NumBadEpochs() int { return r.badEpochs }

// Best returns the best metric so far (±Inf before the first Step).
func (r *ReduceLROnPlateau) Best() float64 {
	if !r.started {
		if r.Max {
			return math.Inf(-1)
		}
		return math.Inf(1)
	}
	return r.best
}
