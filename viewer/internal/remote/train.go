package main

import (
	"context"
	"errors"
	"math/rand/v2"
	"path/filepath"

	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/viewer"
	"github.com/dlca/dlca/viewer/internal/toy"
)

// tinyTraining trains toy.Model towards an all-zero channel 0 for ever,
// keeping its checkpoint in dir/checkpoint.json and the model in
// dir/model.json when it stops, as dlca-view does.
func tinyTraining(dir string, opt viewer.Options) (*viewer.App, error) {
	setup := bptt.Setup{Model: toy.Model(9), Batch: 1, Steps: 3, LossChannels: []int{0}, Optimizer: bptt.PaperOptimizer(0.05)}
	eng, err := bptt.NewCPU(setup)
	if err != nil {
		return nil, err
	}
	run := bptt.Run{Iterations: 1 << 30, Seed: 1, Source: func(rng *rand.Rand) *bptt.Batch {
		return &bptt.Batch{Height: 6, Width: 6, Init: viewer.RandomInit(rng, 6, 6, 2), Target: make([]float32, 36)}
	}}
	k, err := bptt.NewCheckpointer(filepath.Join(dir, "checkpoint.json"), 0, "tiny", eng, &run, nil)
	if err != nil {
		return nil, err
	}
	tr := &viewer.Training{
		Engine: eng, Setup: setup, Run: run,
		Sim: func(m *dlca.Model) viewer.Simulator { return viewer.NewModelSim(m, 12, 10, nil, 7) },
		Finish: func(m *dlca.Model, err error) error {
			if !errors.Is(err, context.Canceled) {
				return err
			}
			if m == nil {
				return k.Save()
			}
			return errors.Join(k.Save(), m.Save(filepath.Join(dir, "model.json")))
		},
	}
	return viewer.NewLive(context.Background(), tr, opt), nil
}
