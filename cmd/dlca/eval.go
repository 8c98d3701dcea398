package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/experiments"
	"github.com/dlca/dlca/viewer/painter"
)

func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("dlca eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	model := fs.String("model", "", "model file (required)")
	name := fs.String("experiment", "checkerboard", "experiment whose initial state and target to use")
	size := fs.Int("size", 64, "grid height and width")
	steps := fs.Int("steps", 80, "steps to run")
	hard := fs.Bool("hard", true, "run the discretised circuit on bits")
	soft := fs.Bool("soft", false, "run the soft (relaxed) model instead of the circuit")
	async := fs.Bool("async", false, "asynchronous steps (each cell fires with the model's fire rate)")
	seed := fs.Uint64("seed", 1, "seed of the initial state and fire masks")
	gif := fs.String("gif", "", "write the rollout as an animated GIF here (- for standard output)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case *model == "":
		return fmt.Errorf("-model is required: the model file to evaluate")
	case *size < 1 || *size > 4096:
		return fmt.Errorf("-size %d: must be in 1..4096", *size)
	case *steps < 0:
		return fmt.Errorf("-steps %d: must not be negative", *steps)
	}
	if *gif != "" {
		if err := checkOutput("-gif", *gif, "model file", *model); err != nil {
			return err
		}
	}
	info := infoWriter(*gif, stdout, stderr)
	isSoft := *soft || !*hard
	e, m, err := loadModel(*model, *name)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(*seed, 0))
	c := m.Config.Channels
	init := autograd.New(e.Init(rng, *size, *size, c), 1, *size, *size, c)
	var frames []painter.Frame
	var final *dlca.Bits
	if isSoft {
		final, err = softRollout(ctx, m, init, *steps, *async, *seed, &frames)
	} else {
		states := []dlca.Bits{*dlca.BitsOf(init)}
		final, err = hardRollout(ctx, m.Circuit(), dlca.BitsOf(init), *steps, *async, *seed, func(s *dlca.Bits) {
			states = append(states, *s.Clone())
		})
		for i := range states {
			frames = append(frames, frameOf(&states[i], 0))
		}
	}
	if err != nil {
		return err
	}
	mode := map[bool]string{true: "soft", false: "hard"}[isSoft]
	fmt.Fprintf(info, "%s %s rollout, %dx%d, %d steps (async %v): ", *model, mode, *size, *size, *steps, *async)
	if e.Target == nil {
		// The target depends on the initial state (Game of Life).
		fmt.Fprintf(info, "%s has no fixed target; dlca check compares it with its reference\n", e.Name)
	} else {
		wrong := experiments.WrongCells(e, final, 0)
		fmt.Fprintf(info, "%d of %d cells differ from the %s target\n", wrong, *size**size, e.Name)
	}
	if *gif != "" {
		if err := interrupted(ctx); err != nil {
			return err
		}
		if err := saveGIF(*gif, frames, paintOptions(e, max(1, 256 / *size))); err != nil {
			return err
		}
		fmt.Fprintf(info, "wrote %s\n", *gif)
	}
	return nil
}

// softRollout runs the relaxed model, recording each state as a frame, and
// returns the final state thresholded at 0.5; it stops with errInterrupted
// when ctx is done.
func softRollout(ctx context.Context, m *dlca.Model, init *autograd.Tensor, steps int, async bool, seed uint64, frames *[]painter.Frame) (*dlca.Bits, error) {
	record := func(s *autograd.Tensor) {
		sh := s.Shape()
		f := painter.NewFrame(sh[1], sh[2], sh[3])
		copy(f.Cells, s.Data32())
		*frames = append(*frames, f)
	}
	record(init)
	final, err := softStepwise(ctx, m, init, steps, async, seed, record)
	if err != nil {
		return nil, err
	}
	return dlca.BitsOf(final), nil
}
