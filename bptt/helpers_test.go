package bptt_test

import (
	"math/rand/v2"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/experiments"
)

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 1)) }

// experimentModel returns a registered experiment and a fresh float32 model
// of its configuration, failing tb if either cannot be had.
func experimentModel(tb testing.TB, name string) (*experiments.Experiment, *dlca.Model) {
	tb.Helper()
	e, err := experiments.Get(name)
	if err != nil {
		tb.Fatal(err)
	}
	m, err := dlca.New(e.Model, autograd.Float32)
	if err != nil {
		tb.Fatal(err)
	}
	return e, m
}

// randomizeLogits sets every logit of m to scale times a standard normal
// draw (seeded), so that some gates are undecided and some not.
func randomizeLogits(m *dlca.Model, seed uint64, scale float64) {
	rng := newRand(seed)
	for _, p := range m.Params() {
		for i := range p.Len() {
			p.SetAt(i, scale*rng.NormFloat64())
		}
	}
}
