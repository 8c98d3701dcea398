// Command dlca-view is the desktop viewer of differentiable logic cellular
// automata: it trains an experiment live and shows the latest model's
// rollout beside the loss curve, or replays a saved model on a grid of any
// size, hard or soft, sync or async. Drag the mouse to wipe cells; F1 lists
// the keys. See docs/viewer.md.
//
// Usage:
//
//	dlca-view -train checkerboard-small [-iterations N] [-out DIR]
//	dlca-view -model out/model.json [-experiment checkerboard] [-size 64] [-hard] [-async]
//
// It needs a display (an X server or Wayland); under Xvfb,
// -screenshot-after N -screenshot FILE writes a picture and exits.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/dlca/dlca/internal/runctl"
	"github.com/dlca/dlca/viewer"
	"github.com/dlca/dlca/viewer/window"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// flags are the command line's settings.
type flags struct {
	train, model, experiment            string
	size, rows, cols                    int
	hard, async, rgb, paused, gridLines bool
	channel, speed                      int
	channelSet                          bool // -channel given: no automatic RGB
	width, height                       int
	shotAfter                           int
	shotPath, shotDir                   string
	long                                runctl.LongRun // -out, -seed, -checkpoint, -resume, ...: the training's settings
}

func parse(args []string, stdout, stderr io.Writer) (*flags, error) {
	f := &flags{}
	fs := flag.NewFlagSet("dlca-view", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.train, "train", "", "train this experiment live (dlca list shows them)")
	fs.StringVar(&f.model, "model", "", "replay this model file")
	fs.StringVar(&f.experiment, "experiment", "", "with -model: the experiment whose initial state to use (default: random bits)")
	fs.StringVar(&f.long.Out, "out", "out/dlca-view", "with -train: directory for model.json and checkpoint.json, saved when training ends or the window closes (with -resume: the run's)")
	fs.StringVar(&f.long.Device, "device", "cpu", "with -train: where to train: cpu, gpu or auto")
	fs.IntVar(&f.long.Iterations, "iterations", 0, "with -train: iterations (0 = the experiment's)")
	fs.Uint64Var(&f.long.Seed, "seed", 23, "seed of the training batches and of the initial states shown")
	fs.Uint64Var(&f.long.WiringSeed, "wiring-seed", 23, "with -train: seed of the wiring")
	fs.IntVar(&f.size, "size", 0, "grid size (square); 0 = the model's training grid")
	fs.IntVar(&f.rows, "rows", 0, "grid rows (overrides -size)")
	fs.IntVar(&f.cols, "cols", 0, "grid columns (overrides -size)")
	fs.BoolVar(&f.hard, "hard", false, "start in hard mode (the circuit on bits)")
	fs.BoolVar(&f.async, "async", false, "start with asynchronous steps")
	fs.IntVar(&f.channel, "channel", 0, "channel shown")
	fs.BoolVar(&f.rgb, "rgb", false, "show channels 0-2 as red, green, blue (the default for experiments whose target has three channels, like colour-g)")
	fs.BoolVar(&f.gridLines, "grid", false, "draw lines between cells")
	fs.IntVar(&f.speed, "speed", 10, "steps per second")
	fs.BoolVar(&f.paused, "paused", false, "start paused")
	fs.IntVar(&f.width, "width", 960, "window width")
	fs.IntVar(&f.height, "height", 640, "window height")
	fs.IntVar(&f.shotAfter, "screenshot-after", 0, "write the screen to -screenshot this many ticks (60 a second) after the start, or after training has ended, then quit")
	fs.StringVar(&f.shotPath, "screenshot", "", "file for -screenshot-after")
	fs.StringVar(&f.shotDir, "shots", ".", "directory for the screenshot key's pictures")
	f.long.AddFlags(fs)
	if err := runctl.ParseFlags(fs, args, stdout); errors.Is(err, flag.ErrHelp) {
		return nil, err
	} else if err != nil {
		return nil, errUsage
	}
	fs.Visit(func(fl *flag.Flag) { f.channelSet = f.channelSet || fl.Name == "channel" })
	f.long.Given(fs, "experiment") // -train names it
	f.long.Command, f.long.Experiment = "dlca-view -train "+f.train, f.train
	switch {
	case fs.NArg() > 0:
		return nil, fmt.Errorf("unexpected argument %q (flags only)", fs.Arg(0))
	case (f.train == "") == (f.model == ""):
		return nil, errors.New("give either -train EXPERIMENT (live training) or -model FILE (replay)")
	case f.size < 0 || f.rows < 0 || f.cols < 0:
		return nil, errors.New("grid sizes must not be negative")
	case f.speed < 1:
		return nil, fmt.Errorf("-speed %d: must be at least 1 step per second", f.speed)
	case f.width < 1 || f.height < 1 || f.width > maxWindow || f.height > maxWindow:
		return nil, fmt.Errorf("-width %d -height %d: the window must be 1 to %d pixels each way", f.width, f.height, maxWindow)
	case f.shotAfter < 0:
		return nil, errors.New("-screenshot-after must not be negative")
	case (f.shotAfter > 0) != (f.shotPath != ""):
		return nil, errors.New("-screenshot-after N and -screenshot FILE go together")
	}
	return f, nil
}

// maxWindow bounds the window's sides: the App draws every frame into an
// image of the window's size, and GPU textures stop at 16384 pixels.
const maxWindow = 16384

// errUsage means the flag package has already explained the problem.
var errUsage = errors.New("usage")

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	f, err := parse(args, stdout, stderr)
	if err == nil {
		err = view(ctx, f, stdout, stderr)
	}
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		return 2
	default:
		fmt.Fprintln(stderr, "dlca-view:", err)
		return 1
	}
}

// view builds the App for the flags and runs its window.
func view(ctx context.Context, f *flags, stdout, stderr io.Writer) error {
	opt := viewer.Options{
		Speed: f.speed, Paused: f.paused,
		Mode: viewer.Mode{Hard: f.hard, Async: f.async},
		View: painterOptions(f), ScreenshotDir: f.shotDir,
	}
	var a *viewer.App
	var err error
	var title, note string
	if f.train != "" {
		a, title, err = liveApp(ctx, f, opt, &note, stderr)
	} else {
		a, title, err = replayApp(f, opt)
	}
	if err != nil {
		return err
	}
	err = window.Run(a, window.Config{
		Title: title, Width: f.width, Height: f.height,
		ScreenshotAfter: f.shotAfter, ScreenshotPath: f.shotPath,
		Stop: ctx.Done(),
	})
	a.Wait()
	if err != nil {
		return err
	}
	if _, terr, live := a.Training(); live {
		if terr != nil {
			return terr
		}
		fmt.Fprintf(stdout, "model saved to %s\n", modelPath(f))
		if note != "" {
			fmt.Fprintln(stdout, note)
		}
	}
	if f.shotPath != "" {
		fmt.Fprintf(stdout, "screenshot written to %s\n", f.shotPath)
	}
	return nil
}
