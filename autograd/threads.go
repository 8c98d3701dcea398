package autograd

import (
	"math/bits"

	"github.com/dlca/dlca/internal/parallel"
)

// threadChoices picks the goroutines of one kind of parallel work by
// timing it (parallel.Choice), one choice per power-of-two size class of
// the work: a product of 2^20 multiply-adds and one of 2^26 scale
// differently. Every result in this package is the same for any count, so
// the choice changes only the time.
type threadChoices [64]*parallel.Choice

func newThreadChoices() *threadChoices {
	var c threadChoices
	for i := range c {
		c[i] = parallel.NewChoice()
	}
	return &c
}

// of returns the choice for work units of work.
func (c *threadChoices) of(work int) *parallel.Choice {
	return c[bits.Len(uint(max(work, 1)))-1]
}

var (
	gemmChoices = newThreadChoices() // matrix products (gemm)
	loopChoices = newThreadChoices() // parallelForCost's loops
)
