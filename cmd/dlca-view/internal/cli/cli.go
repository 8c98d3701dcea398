package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/dlca/dlca/cmd/internal/runctl"
)

// init prints the usage and exits when the command line asks for it, before
// ebiten starts: ebiten's own initialisation panics where there is no
// display, so this must run first. It does, as this package's import path
// sorts before github.com/hajimehoshi and its imports are ebiten's or
// initialise before them (Go initialises packages in import-path order
// where dependencies allow); TestHelpWithoutDisplay holds it to that.
func init() {
	if _, err := Parse(os.Args[1:], os.Stdout, io.Discard); errors.Is(err, ErrHelp) {
		os.Exit(0)
	}
}

// Flags are the command line's settings.
type Flags struct {
	Train, Model, Experiment            string
	Size, Rows, Cols                    int
	Hard, Async, RGB, Paused, GridLines bool
	Channel, Speed                      int
	ChannelSet                          bool            // -channel given: no automatic RGB
	Given                               map[string]bool // the flags given on the command line, by name
	Width, Height                       int
	ShotAfter                           int
	ShotPath, ShotDir                   string
	Long                                runctl.LongRun // -out, -seed, -checkpoint, -resume, ...: the training's settings
}

// Parse parses dlca-view's command line. Asked for help (-h), it writes
// the usage to stdout and returns ErrHelp; on a mistake the flag package's
// explanation goes to stderr and the error is ErrUsage.
func Parse(args []string, stdout, stderr io.Writer) (*Flags, error) {
	f := &Flags{}
	fs := flag.NewFlagSet("dlca-view", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.Train, "train", "", "train this experiment live: a built-in one (dlca list shows them) or an experiment file (docs/config.md), as dlca train -config FILE")
	fs.StringVar(&f.Model, "model", "", "replay this model file")
	fs.StringVar(&f.Experiment, "experiment", "", "with -model: the experiment, built-in or a file, whose initial state, target and colours to use (default: the one the model records; random bits for a model that records none)")
	fs.StringVar(&f.Long.Out, "out", "out/dlca-view", "with -train: directory for model.json and checkpoint.json, saved when training ends or the window closes (with -resume: the run's)")
	fs.StringVar(&f.Long.Device, "device", "cpu", "with -train: where to train: cpu, gpu or auto")
	fs.IntVar(&f.Long.Iterations, "iterations", 0, "with -train: iterations (0 = the experiment's)")
	fs.Uint64Var(&f.Long.Seed, "seed", 23, "seed of the training batches and of the initial states shown")
	fs.Uint64Var(&f.Long.WiringSeed, "wiring-seed", 23, "with -train: seed of the wiring")
	fs.IntVar(&f.Size, "size", 0, "grid size (square); 0 = the model's training grid")
	fs.IntVar(&f.Rows, "rows", 0, "grid rows (overrides -size)")
	fs.IntVar(&f.Cols, "cols", 0, "grid columns (overrides -size)")
	fs.BoolVar(&f.Hard, "hard", true, "start in hard mode: the learned circuit on bits (-hard=false: the soft model)")
	fs.BoolVar(&f.Async, "async", false, "start with asynchronous steps")
	fs.IntVar(&f.Channel, "channel", 0, "channel shown")
	fs.BoolVar(&f.RGB, "rgb", false, "show channels 0-2 as red, green, blue (the default for experiments whose target has three channels, like colour-g)")
	fs.BoolVar(&f.GridLines, "grid", false, "draw lines between cells")
	fs.IntVar(&f.Speed, "speed", 10, "steps per second")
	fs.BoolVar(&f.Paused, "paused", false, "start paused")
	fs.IntVar(&f.Width, "width", 960, "window width")
	fs.IntVar(&f.Height, "height", 640, "window height")
	fs.IntVar(&f.ShotAfter, "screenshot-after", 0, "write the screen to -screenshot this many ticks (60 a second) after the start, or after training has ended, then quit")
	fs.StringVar(&f.ShotPath, "screenshot", "", "file for -screenshot-after")
	fs.StringVar(&f.ShotDir, "shots", ".", "directory for the screenshot key's pictures")
	f.Long.AddFlags(fs)
	if err := runctl.ParseFlags(fs, args, stdout); errors.Is(err, flag.ErrHelp) {
		return nil, ErrHelp
	} else if err != nil {
		return nil, ErrUsage
	}
	f.Given = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.Given[fl.Name] = true })
	f.ChannelSet = f.Given["channel"]
	f.Long.Given(fs, "experiment") // -train names it
	f.Long.Command, f.Long.Experiment = "dlca-view -train "+f.Train, f.Train
	switch {
	case fs.NArg() > 0:
		return nil, fmt.Errorf("unexpected argument %q (flags only)", fs.Arg(0))
	case (f.Train == "") == (f.Model == ""):
		return nil, errors.New("give either -train EXPERIMENT or -train FILE.toml (live training) or -model FILE (replay)")
	case f.Size < 0 || f.Rows < 0 || f.Cols < 0:
		return nil, errors.New("grid sizes must not be negative")
	case f.Speed < 1:
		return nil, fmt.Errorf("-speed %d: must be at least 1 step per second", f.Speed)
	case f.Width < 1 || f.Height < 1 || f.Width > MaxWindow || f.Height > MaxWindow:
		return nil, fmt.Errorf("-width %d -height %d: the window must be 1 to %d pixels each way", f.Width, f.Height, MaxWindow)
	case f.ShotAfter < 0:
		return nil, errors.New("-screenshot-after must not be negative")
	case (f.ShotAfter > 0) != (f.ShotPath != ""):
		return nil, errors.New("-screenshot-after N and -screenshot FILE go together")
	}
	return f, nil
}

// MaxWindow bounds the window's sides: the App draws every frame into an
// image of the window's size, and GPU textures stop at 16384 pixels.
const MaxWindow = 16384

var (
	// ErrUsage means the flag package has already explained the problem.
	ErrUsage = errors.New("usage")
	// ErrHelp means the usage was asked for, and printed.
	ErrHelp = errors.New("help")
)
