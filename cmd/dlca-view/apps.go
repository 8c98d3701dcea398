package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/cmd/dlca-view/internal/cli"
	"github.com/dlca/dlca/cmd/internal/runctl"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/experiments"
	"github.com/dlca/dlca/gpu"
	"github.com/dlca/dlca/viewer"
	"github.com/dlca/dlca/viewer/painter"
)

func painterOptions(f *cli.Flags) painter.Options {
	return painter.Options{Channel: f.Channel, RGB: f.RGB, GridLines: f.GridLines}
}

// colourTarget switches to RGB for an experiment whose target is a colour
// picture (three loss channels, such as colour-g), unless -channel was given.
func colourTarget(f *cli.Flags, e *experiments.Experiment, opt *viewer.Options) {
	if len(e.LossChannels) >= 3 && !f.ChannelSet {
		opt.View.RGB = true
	}
}

// wrongCells compares a shown state with e's target, for the viewer to
// frame the cells that differ (nil for an experiment whose target depends
// on the initial state, as Game of Life's does).
func wrongCells(e *experiments.Experiment) func(painter.Frame) []bool {
	if e.Target == nil {
		return nil
	}
	return func(f painter.Frame) []bool {
		return experiments.WrongMask(e, dlca.BitsOf(autograd.New(f.Cells, 1, f.H, f.W, f.C)))
	}
}

// gridSize returns the grid the flags ask for, defaulting to h x w.
func gridSize(f *cli.Flags, h, w int) (int, int) {
	if f.Size > 0 {
		h, w = f.Size, f.Size
	}
	if f.Rows > 0 {
		h = f.Rows
	}
	if f.Cols > 0 {
		w = f.Cols
	}
	return h, w
}

// checkChannel says when -channel names no channel of a c-channel model.
func checkChannel(f *cli.Flags, c int) error {
	if f.Channel < 0 || f.Channel >= c {
		return fmt.Errorf("-channel %d: the model has channels 0 to %d", f.Channel, c-1)
	}
	return nil
}

func modelPath(f *cli.Flags) string { return filepath.Join(f.Long.Out, "model.json") }

// liveApp starts training f.Train (a built-in experiment or an
// experiment file) and returns the App that shows it. When the window
// closes before training ends, the checkpoint is saved and *note says how
// to resume.
func liveApp(ctx context.Context, f *cli.Flags, opt viewer.Options, note *string, stderr io.Writer) (*viewer.App, string, error) {
	e, resumed, err := liveExperiment(f)
	if err != nil {
		return nil, "", err
	}
	if err := checkChannel(f, e.Model.Channels); err != nil {
		return nil, "", err
	}
	h, w := gridSize(f, e.Model.Height, e.Model.Width)
	l, err := f.Long.Launch(runctl.Job{ // the long-run sequence, as dlca train's
		Config: e.Model,
		New:    func() (*dlca.Model, error) { return dlca.New(e.Model, autograd.Float32) },
		Setup:  e.Setup,
		Run:    e.Run(),
		Height: e.Model.Height, Width: e.Model.Width,
		SelectEngine: gpu.SelectEngine,
		Check: func(m *dlca.Model, _ bptt.Setup) error {
			return checkViewMemory(m, h, w) // memory.go
		},
	}, resumed, stderr)
	if err != nil {
		return nil, "", err
	}
	tr := &viewer.Training{
		Engine: l.Engine, Setup: l.Setup, Run: l.Run,
		Sim: func(m *dlca.Model) viewer.Simulator {
			return viewer.NewModelSim(m, h, w, e.Init, f.Long.Seed)
		},
		Finish: func(m *dlca.Model, err error) error {
			defer l.Release() // the viewer closes the engine
			if m != nil {
				// The model records the experiment it was trained by, as
				// dlca train's does: a replay, dlca eval and export read it.
				if rerr := e.Config.RecordIn(m); rerr != nil {
					return rerr
				}
				if serr := m.Save(modelPath(f)); serr != nil {
					return serr
				}
			}
			if errors.Is(err, context.Canceled) {
				// End saves the checkpoint and says how to go on.
				*note = l.End(err).Error()
				return nil
			}
			return l.End(err)
		},
	}
	if resumed != nil {
		for _, m := range resumed.Metrics {
			opt.History = append(opt.History, viewer.Losses{Soft: m.SoftLoss, Hard: m.HardLoss})
		}
	}
	colourTarget(f, e, &opt)
	opt.Wrong = wrongCells(e)
	opt.Title = fmt.Sprintf("training %s on %s", e.Name, l.Device)
	opt.RolloutSteps = e.Steps
	return viewer.NewLive(ctx, tr, opt), "dlca-view: training " + e.Name, nil
}

// liveExperiment returns the experiment f.Train names, read as dlca train
// reads -config FILE or -experiment NAME (experiments.Lookup), with the
// seeds and iterations of the flags or of the checkpoint f resumes.
func liveExperiment(f *cli.Flags) (*experiments.Experiment, *bptt.Checkpoint, error) {
	cfg, err := experiments.Lookup(f.Train)
	if err != nil {
		return nil, nil, err
	}
	// The run's label is the experiment's name (a file's name without
	// .toml), as dlca train's, so that checkpoints agree.
	f.Long.Experiment = cfg.Name
	resumed, err := f.Long.Resumed()
	if err != nil {
		return nil, nil, err
	}
	if f.Given["seed"] || resumed != nil {
		cfg.Seed = f.Long.Seed
	}
	if f.Given["wiring-seed"] || resumed != nil {
		cfg.WiringSeed = f.Long.WiringSeed
	}
	if f.Long.Iterations > 0 {
		cfg.Iterations = f.Long.Iterations
	}
	var text strings.Builder
	if err := cfg.WriteTOML(&text); err != nil {
		return nil, nil, err
	}
	f.Long.Config = text.String() // checkpoints record it
	f.Long.Seed, f.Long.WiringSeed = cfg.Seed, cfg.WiringSeed
	e, err := cfg.Resolve()
	return e, resumed, err
}

// replayApp loads f.Model and returns the App that runs it, from the
// initial states of -experiment or of the experiment the model records.
func replayApp(f *cli.Flags, opt viewer.Options) (*viewer.App, string, error) {
	m, err := dlca.Load(f.Model)
	if err != nil {
		return nil, "", err
	}
	if err := checkChannel(f, m.Config.Channels); err != nil {
		return nil, "", err
	}
	e, err := experiments.ForModel(m, f.Model, f.Experiment, "")
	if err != nil {
		return nil, "", err
	}
	var init viewer.InitFunc
	if e != nil {
		init = e.Init
		colourTarget(f, e, &opt)
		opt.Wrong = wrongCells(e)
	}
	h, w := gridSize(f, m.Config.Height, m.Config.Width)
	if err := checkViewMemory(m, h, w); err != nil { // memory.go
		return nil, "", err
	}
	opt.Title = fmt.Sprintf("replay %s", filepath.Base(f.Model))
	if e != nil {
		opt.Title += " as " + e.Name
	}
	return viewer.New(viewer.NewModelSim(m, h, w, init, f.Long.Seed), opt), "dlca-view: " + f.Model, nil
}
