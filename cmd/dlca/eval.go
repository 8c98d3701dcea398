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
)

func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("dlca eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	model := fs.String("model", "", "model file (required)")
	name := fs.String("experiment", "", "built-in experiment whose initial state and target to use (default: the experiment the model records, else checkerboard)")
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
	o := paintOptions(e, max(1, 256 / *size))
	if err := checkEvalMemory(m, *size, isSoft, *gif != "", o); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(*seed, 0))
	c := m.Config.Channels
	init := autograd.New(e.Init(rng, *size, *size, c), 1, *size, *size, c)
	// The frames go straight to the GIF, one at a time (evalframes.go).
	roll := func(frame frameFunc) (*dlca.Bits, error) {
		return evalRollout(ctx, m, init, *steps, isSoft, *async, *seed, o, frame)
	}
	var final *dlca.Bits
	if *gif != "" {
		final, err = saveRolloutGIF(*gif, o, isSoft, roll)
	} else {
		final, err = roll(nil)
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
		fmt.Fprintf(info, "wrote %s\n", *gif)
	}
	return nil
}
