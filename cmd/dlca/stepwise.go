package main

import (
	"context"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/dlca"
)

// hardRollout runs the circuit c for steps steps from s, as
// dlca.Circuit.Rollout does (the same fire masks when async), calling after
// with each new state, and stops with errInterrupted as soon as ctx is done.
func hardRollout(ctx context.Context, c *dlca.Circuit, s *dlca.Bits, steps int, async bool, seed uint64, after func(*dlca.Bits)) (*dlca.Bits, error) {
	cur, next := s.Clone(), s.Clone()
	var masks *dlca.FireMasks
	if async {
		masks = dlca.NewFireMasks(seed, c.FireRate)
	}
	for range steps {
		if err := interrupted(ctx); err != nil {
			return nil, err
		}
		var fire []bool
		if masks != nil {
			fire = masks.Next(s.Cells())
		}
		c.Step(next, cur, fire)
		cur, next = next, cur
		after(cur)
	}
	return cur, nil
}

// softStepwise runs the soft model m for steps steps from state, as one
// m.Rollout would (the same coefficients and fire masks), calling after
// with each new state, and stops with errInterrupted as soon as ctx is done.
func softStepwise(ctx context.Context, m *dlca.Model, state *autograd.Tensor, steps int, async bool, seed uint64, after func(*autograd.Tensor)) (*autograd.Tensor, error) {
	opt := dlca.RolloutOptions{Async: async, Seed: seed, Workspace: new(dlca.Workspace),
		Masks: dlca.NewFireMasks(seed, m.Config.FireRate)}
	var err error
	autograd.NoGrad(func() {
		opt.Coefficients = m.Coefficients()
		for range steps {
			if err = interrupted(ctx); err != nil {
				return
			}
			state = m.Rollout(state, 1, opt)
			after(state)
		}
	})
	return state, err
}
