package bptt

import (
	"fmt"
	"math"
	"slices"

	"github.com/dlca/dlca/autograd/optim"
)

// maxLR is the largest learning rate a checkpoint may hold. The logits are
// of order 1 and every step moves them by about the learning rate, so any
// rate near this bound already destroys the model in one step: a larger one
// is a damaged file, not a choice.
const maxLR = 1e3

// checkOptimizer returns an error naming the field of a checkpoint's
// optimiser state that no run can have written, so that a damaged file is
// refused when it is read rather than reported later as a diverged run.
func checkOptimizer(s optim.State) error {
	switch {
	case math.IsNaN(s.LR) || s.LR <= 0 || s.LR > maxLR:
		return fmt.Errorf("bptt: checkpoint field optimizer.lr is %g: a learning rate must be in (0, %g]; the file is damaged", s.LR, float64(maxLR))
	case s.Steps < 0:
		return fmt.Errorf("bptt: checkpoint field optimizer.steps is %d: must not be negative; the file is damaged", s.Steps)
	}
	for i, n := range s.ParamSteps {
		if n < 0 {
			return fmt.Errorf("bptt: checkpoint field optimizer.param_steps[%d] is %d: must not be negative; the file is damaged", i, n)
		}
	}
	for i, lr := range s.GroupLRs {
		if math.IsNaN(lr) || lr <= 0 || lr > maxLR {
			return fmt.Errorf("bptt: checkpoint field optimizer.group_lrs[%d] is %g: a learning rate must be in (0, %g]; the file is damaged", i, lr, float64(maxLR))
		}
	}
	names := make([]string, 0, len(s.Buffers))
	for name := range s.Buffers {
		names = append(names, name)
	}
	slices.Sort(names) // the same field named on every load
	for _, name := range names {
		// Adam's v holds running means of squared gradients, and
		// AMSGrad's max_v their running maximum.
		nonNegative := name == "v" || name == "max_v"
		for i, buf := range s.Buffers[name] {
			for j, x := range buf {
				if math.IsNaN(x) || math.IsInf(x, 0) || nonNegative && x < 0 {
					return fmt.Errorf("bptt: checkpoint field optimizer.buffers.%s[%d][%d] is %g: %s; the file is damaged", name, i, j, x, bufferRule(nonNegative))
				}
			}
		}
	}
	return nil
}

func bufferRule(nonNegative bool) string {
	if nonNegative {
		return "second moments must be finite and not negative"
	}
	return "must be finite"
}
