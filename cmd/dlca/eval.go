package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"strings"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/experiments"
	"github.com/dlca/dlca/internal/memlimit"
	"github.com/dlca/dlca/internal/safefile"
	"github.com/dlca/dlca/internal/state"
)

func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("dlca eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	model := fs.String("model", "", "model file (required)")
	name := fs.String("experiment", "", "experiment whose initial state and target to use, built-in or an experiment file (default: the experiment the model records, else checkerboard)")
	size := fs.Int("size", 64, "grid height and width (a square grid)")
	height := fs.Int("height", 64, "grid height (instead of -size, with -width)")
	width := fs.Int("width", 64, "grid width (instead of -size, with -height)")
	steps := fs.Int("steps", 80, "steps to run")
	hard := fs.Bool("hard", true, "run the discretised circuit on bits")
	soft := fs.Bool("soft", false, "run the soft (relaxed) model instead of the circuit")
	async := fs.Bool("async", false, "asynchronous steps (each cell fires with the model's fire rate)")
	seed := fs.Uint64("seed", 1, "seed of the initial state and fire masks")
	initPath := fs.String("init", "", "start from the state in this file: a NumPy .npy array [H, W, C] of 0/1 (or a batch [B, H, W, C]: one rollout per state), or a PNG picture (channel 0, or -palette); sets the grid's size")
	threshold := fs.Float64("threshold", state.DefaultThreshold, "grey level (0 black to 1 white) from which a PNG -init pixel is 1")
	palette := fs.String("palette", "", "map a PNG -init's colours to channel bits: #rrggbb=BITS,... (BITS: channels 0, 1, ... in order) or rgb")
	gif := fs.String("gif", "", "write the rollout as an animated GIF here (- for standard output)")
	png := fs.String("png", "", "write the last state, drawn as the GIF's frames are, as a PNG picture here")
	maxMemory := fs.String("max-memory", "", "refuse to run if the estimated memory exceeds this (e.g. 2GiB; default: the available memory, or the room under the container's limit if less)")
	states := fs.String("states", "", "write every state as a NumPy .npy array [steps+1, H, W, C] here ([steps+1, B, H, W, C] for an -init batch; uint8 0/1, float32 with -soft; - for standard output)")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	g, err := gridOf(fs, *size, *height, *width)
	switch {
	case *model == "":
		return fmt.Errorf("-model is required: the model file to evaluate")
	case err != nil:
		return err
	case *steps < 0:
		return fmt.Errorf("-steps %d: must not be negative", *steps)
	case !(*threshold >= 0 && *threshold <= 1):
		return fmt.Errorf("-threshold %v: a grey level must be in [0, 1] (0 black, 1 white; the default is %v)", *threshold, state.DefaultThreshold)
	case (flagSet(fs, "threshold") || *palette != "") && !strings.EqualFold(filepath.Ext(*initPath), ".png"):
		return fmt.Errorf("-threshold and -palette say how to read a PNG -init; there is no PNG -init")
	case toStdout(*gif, *states, *png) > 1:
		return fmt.Errorf("more than one of -gif, -states and -png name standard output; write all but one to files")
	case *gif != "" && *states != "" && safefile.Same(*gif, *states):
		return fmt.Errorf("-gif and -states name the same file %s; name two files", *gif)
	case *png != "" && (*gif != "" && safefile.Same(*png, *gif) || *states != "" && safefile.Same(*png, *states)):
		return fmt.Errorf("-png %s names the same file as -gif or -states; name another file", *png)
	}
	for _, out := range []struct{ flag, path string }{{"-gif", *gif}, {"-states", *states}, {"-png", *png}} {
		if out.path == "" {
			continue
		}
		if err := checkOutput(out.flag, out.path, "model file", *model); err != nil {
			return err
		}
		if *initPath != "" {
			if err := notInput(out.flag, out.path, "-init file", *initPath); err != nil {
				return err
			}
		}
	}
	info := infoWriter(*gif, stdout, stderr)
	if toStdout(*states, *png) > 0 {
		info = stderr
	}
	isSoft := *soft || !*hard
	e, m, err := loadModel(*model, *name)
	if err != nil {
		return err
	}
	c := m.Config.Channels
	var init []float32
	if *initPath != "" {
		if g, init, err = loadInit(*initPath, g, c, isSoft, *threshold, *palette); err != nil {
			return err
		}
	}
	if *states != "" {
		// The file holds every state: refused before the rollout if the
		// disk cannot hold it (the size also bounds -steps).
		if err := checkOutputSize("-states", *states, statesBytes(isSoft, *steps, g.batch, g.h, g.w, c), ""); err != nil {
			return fmt.Errorf("%w (-steps %d)", err, *steps)
		}
	}
	o := paintOptions(e, max(1, 256/max(g.h, g.w)))
	if err := checkEvalMemory(m, g, isSoft, *gif != "", o, *maxMemory); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(*seed, 0))
	if init == nil {
		init = e.Init(rng, g.h, g.w, c)
	}
	initial := autograd.New(init, g.states(), g.h, g.w, c)
	// The frames go straight to the GIF and the states to their file, one
	// at a time (evalframes.go).
	var record *statesWriter
	roll := func(frame frameFunc) (*dlca.Bits, error) {
		return evalRollout(ctx, m, initial, *steps, isSoft, *async, *seed, o, frame, record)
	}
	rollOut := func() (*dlca.Bits, error) {
		switch {
		case *gif != "":
			return saveRolloutGIF(*gif, *png, e, o, isSoft, roll)
		case *png != "":
			return saveFinalPNG(*png, e, o, roll)
		}
		return roll(nil)
	}
	var final *dlca.Bits
	if *states != "" {
		err = writeOutput(ctx, *states, func(w io.Writer) error {
			if record, err = newStatesWriter(w, isSoft, *steps, g.batch, g.h, g.w, c); err != nil {
				return err
			}
			if final, err = rollOut(); err != nil {
				return err
			}
			return record.close()
		})
	} else {
		final, err = rollOut()
	}
	if err != nil {
		return err
	}
	mode := map[bool]string{true: "soft", false: "hard"}[isSoft]
	rollouts := "rollout"
	if g.batch > 0 {
		rollouts = fmt.Sprintf("rollouts of the %d states of -init's batch", g.batch)
	}
	fmt.Fprintf(info, "%s %s %s, %dx%d, %d steps (async %v): ", *model, mode, rollouts, g.h, g.w, *steps, *async)
	if e.Target == nil {
		// The target depends on the initial state (Game of Life).
		fmt.Fprintf(info, "%s has no fixed target; dlca check compares it with its reference\n", e.Name)
	} else {
		var wrong []string
		for _, b := range final.Boards {
			one := &dlca.Bits{Batch: 1, Height: final.Height, Width: final.Width, Channels: final.Channels, Boards: []*circuit.Grid{b}}
			wrong = append(wrong, fmt.Sprint(experiments.WrongCells(e, one, 0)))
		}
		fmt.Fprintf(info, "%s of %d cells differ from the %s target\n", strings.Join(wrong, ", "), g.h*g.w, e.Name)
	}
	pictures := ""
	if g.batch > 1 {
		pictures = fmt.Sprintf(" (state 0 of the batch of %d)", g.batch)
	}
	if *gif != "" {
		fmt.Fprintf(info, "wrote %s%s\n", *gif, pictures)
	}
	if *png != "" {
		fmt.Fprintf(info, "wrote %s%s\n", *png, pictures)
	}
	if *states != "" {
		shape := statesShape(*steps, g.batch, g.h, g.w, c)
		fmt.Fprintf(info, "wrote %s (%d states of %dx%dx%d; %s %s: %s; %s)\n", *states, (*steps+1)*g.states(), g.h, g.w, c, map[bool]string{true: "float32", false: "uint8"}[isSoft], state.ShapeString(shape),
			map[bool]string{true: "step, state of the batch, row, column, channel", false: "step, row, column, channel"}[g.batch > 0],
			memlimit.FormatBytes(statesBytes(isSoft, *steps, g.batch, g.h, g.w, c)))
	}
	return nil
}

// flagSet reports whether the command line gave fs the flag name.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// toStdout counts the output paths that name standard output.
func toStdout(paths ...string) int {
	n := 0
	for _, p := range paths {
		if p != "" && safefile.IsStdout(p) {
			n++
		}
	}
	return n
}
