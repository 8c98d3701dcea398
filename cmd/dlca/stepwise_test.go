package main

import (
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/experiments"
)

// randomModel returns a model of experiment name's config with random
// logits, so that its rollouts change the state.
func randomModel(t *testing.T, name string) (*experiments.Experiment, *dlca.Model) {
	t.Helper()
	e, err := experiments.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	m, err := dlca.New(e.Model, autograd.Float32)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 0))
	for _, l := range m.Layers() {
		for i := range l.Logits.Len() {
			l.Logits.SetAt(i, 4*rng.NormFloat64())
		}
	}
	return e, m
}

// TestStepwiseRollouts: the stepwise rollouts that eval runs (to stop on
// Ctrl-C) give the states of dlca's own rollouts, step by step, sync and
// async; with a cancelled context they stop with errInterrupted.
func TestStepwiseRollouts(t *testing.T) {
	e, m := randomModel(t, "checkerboard-small")
	const size, steps, seed = 12, 6, 9
	init := autograd.New(e.Init(rand.New(rand.NewPCG(1, 0)), size, size, m.Config.Channels), 1, size, size, m.Config.Channels)
	for _, async := range []bool{false, true} {
		var want, got []*dlca.Bits
		m.Circuit().Rollout(dlca.BitsOf(init), steps, dlca.HardOptions{Async: async, Seed: seed, After: func(_ int, s *dlca.Bits) {
			want = append(want, s.Clone())
		}})
		if _, err := hardRollout(context.Background(), m.Circuit(), dlca.BitsOf(init), steps, async, seed, func(s *dlca.Bits) {
			got = append(got, s.Clone())
		}); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("async %v: the stepwise hard rollout differs from Circuit.Rollout", async)
		}
		var wantSoft, gotSoft [][]float32
		autograd.NoGrad(func() {
			m.Rollout(init, steps, dlca.RolloutOptions{Async: async, Seed: seed, After: func(_ int, s *autograd.Tensor) *autograd.Tensor {
				wantSoft = append(wantSoft, slices.Clone(s.Data32()))
				return s
			}})
		})
		if _, err := softStepwise(context.Background(), m, init, steps, async, seed, func(s *autograd.Tensor) {
			gotSoft = append(gotSoft, slices.Clone(s.Data32()))
		}); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(gotSoft, wantSoft) {
			t.Errorf("async %v: the stepwise soft rollout differs from Model.Rollout", async)
		}
		if reflect.DeepEqual(want[0], want[steps-1]) {
			t.Errorf("async %v: the state never changed; the test proves nothing", async)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := hardRollout(ctx, m.Circuit(), dlca.BitsOf(init), steps, false, seed, func(*dlca.Bits) {}); !errors.Is(err, errInterrupted) {
		t.Errorf("hard rollout, cancelled: error %v", err)
	}
	if _, err := softStepwise(ctx, m, init, steps, false, seed, func(*autograd.Tensor) {}); !errors.Is(err, errInterrupted) {
		t.Errorf("soft rollout, cancelled: error %v", err)
	}
}
