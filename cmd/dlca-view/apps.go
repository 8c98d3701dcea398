package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/experiments"
	"github.com/dlca/dlca/gpu"
	"github.com/dlca/dlca/viewer"
	"github.com/dlca/dlca/viewer/painter"
)

func painterOptions(f *flags) painter.Options {
	return painter.Options{Channel: f.channel, RGB: f.rgb, GridLines: f.gridLines}
}

// colourTarget switches to RGB for an experiment whose target is a colour
// picture (three loss channels, such as colour-g), unless -channel was given.
func colourTarget(f *flags, e *experiments.Experiment, opt *viewer.Options) {
	if len(e.LossChannels) >= 3 && !f.channelSet {
		opt.View.RGB = true
	}
}

// gridSize returns the grid the flags ask for, defaulting to h x w.
func gridSize(f *flags, h, w int) (int, int) {
	if f.size > 0 {
		h, w = f.size, f.size
	}
	if f.rows > 0 {
		h = f.rows
	}
	if f.cols > 0 {
		w = f.cols
	}
	return h, w
}

// checkChannel says when -channel names no channel of a c-channel model.
func checkChannel(f *flags, c int) error {
	if f.channel < 0 || f.channel >= c {
		return fmt.Errorf("-channel %d: the model has channels 0 to %d", f.channel, c-1)
	}
	return nil
}

func modelPath(f *flags) string { return filepath.Join(f.long.Out, "model.json") }

// liveApp starts training f.train and returns the App that shows it. When
// the window closes before training ends, the checkpoint is saved and *note
// says how to resume.
func liveApp(ctx context.Context, f *flags, opt viewer.Options, note *string, stderr io.Writer) (*viewer.App, string, error) {
	resumed, err := f.long.Resumed()
	if err != nil {
		return nil, "", err
	}
	e, err := experiments.Get(f.long.Experiment)
	if err != nil {
		return nil, "", err
	}
	if f.long.Iterations > 0 {
		e.Iterations = f.long.Iterations
	}
	e.Seed, e.Model.Seed = f.long.Seed, f.long.WiringSeed
	if err := checkChannel(f, e.Model.Channels); err != nil {
		return nil, "", err
	}
	if err := f.long.CheckModel(resumed, e.Model); err != nil {
		return nil, "", err
	}
	m, err := dlca.New(e.Model, autograd.Float32)
	if err != nil {
		return nil, "", err
	}
	if resumed != nil {
		m = resumed.Model
	}
	h, w := gridSize(f, e.Model.Height, e.Model.Width)
	if err := checkViewMemory(m, h, w); err != nil { // memory.go
		return nil, "", err
	}
	setup := e.Setup(m)
	if err := f.long.Prepare(&setup, e.Model.Height, e.Model.Width); err != nil {
		return nil, "", err
	}
	eng, device, err := gpu.SelectEngine(f.long.Device, setup, stderr)
	if err != nil {
		return nil, "", err
	}
	run := e.Run()
	stopCheckpoints, err := f.long.Start(eng, &run, resumed, stderr)
	if err != nil {
		eng.Close()
		return nil, "", err
	}
	tr := &viewer.Training{
		Engine: eng, Setup: setup, Run: run,
		Sim: func(m *dlca.Model) viewer.Simulator {
			return viewer.NewModelSim(m, h, w, e.Init, f.long.Seed)
		},
		Finish: func(m *dlca.Model, err error) error {
			defer stopCheckpoints()
			if m != nil {
				if serr := m.Save(modelPath(f)); serr != nil {
					return serr
				}
			}
			if errors.Is(err, context.Canceled) {
				// Stopped saves the checkpoint and says how to go on.
				*note = f.long.Stopped(err).Error()
				return nil
			}
			if err != nil {
				return f.long.Stopped(err)
			}
			return f.long.Finished()
		},
	}
	if resumed != nil {
		for _, m := range resumed.Metrics {
			opt.History = append(opt.History, viewer.Losses{Soft: m.SoftLoss, Hard: m.HardLoss})
		}
	}
	colourTarget(f, e, &opt)
	opt.Title = fmt.Sprintf("training %s on %s", e.Name, device)
	opt.RolloutSteps = e.Steps
	return viewer.NewLive(ctx, tr, opt), "dlca-view: training " + e.Name, nil
}

// replayApp loads f.model and returns the App that runs it.
func replayApp(f *flags, opt viewer.Options) (*viewer.App, string, error) {
	m, err := dlca.Load(f.model)
	if err != nil {
		return nil, "", err
	}
	if err := checkChannel(f, m.Config.Channels); err != nil {
		return nil, "", err
	}
	var init viewer.InitFunc
	if f.experiment != "" {
		e, err := experiments.Get(f.experiment)
		if err != nil {
			return nil, "", err
		}
		if e.Model.Channels != m.Config.Channels {
			return nil, "", fmt.Errorf("-experiment %s has %d channels, the model %d: pick the experiment the model was trained on", e.Name, e.Model.Channels, m.Config.Channels)
		}
		init = e.Init
		colourTarget(f, e, &opt)
	}
	h, w := gridSize(f, m.Config.Height, m.Config.Width)
	if err := checkViewMemory(m, h, w); err != nil { // memory.go
		return nil, "", err
	}
	opt.Title = fmt.Sprintf("replay %s", filepath.Base(f.model))
	return viewer.New(viewer.NewModelSim(m, h, w, init, f.long.Seed), opt), "dlca-view: " + f.model, nil
}
