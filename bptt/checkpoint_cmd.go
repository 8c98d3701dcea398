package bptt

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/dlca/dlca/dlca"
)

// LongRun holds a training command's settings for long runs: checkpoints,
// resuming, the memory limit and gradient checkpointing over time.
// AddFlags registers them; the command then calls, in order, Resumed (the
// model to train), Prepare (setup and memory), Start (checkpointer) and,
// when Train returns an error, Stopped.
type LongRun struct {
	Checkpoint string // checkpoint file; "" = checkpoint.json in the output directory
	Every      int    // checkpoint every Every iterations (0: at the end and on interrupt only)
	Resume     string // checkpoint to resume from
	MaxMemory  string // memory limit ("" = MemoryLimit)
	Recompute  int    // Setup.Recompute

	k *Checkpointer
}

// AddFlags registers -checkpoint, -checkpoint-every, -resume, -max-memory
// and -recompute on fs.
func (o *LongRun) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.Checkpoint, "checkpoint", "", "checkpoint file (default checkpoint.json in -out)")
	fs.IntVar(&o.Every, "checkpoint-every", 50, "save a checkpoint every N iterations (0: only at the end, on SIGINT/SIGTERM and on SIGUSR1)")
	fs.StringVar(&o.Resume, "resume", "", "resume the run saved in this checkpoint file (same -experiment and -seed)")
	fs.StringVar(&o.MaxMemory, "max-memory", "", "refuse to train if the estimated memory exceeds this (e.g. 2GiB; default: the available memory, or the room under the container's limit if less)")
	fs.IntVar(&o.Recompute, "recompute", 0, "gradient checkpointing over time: keep every Kth step's state, recompute the rest in backward (same gradients, less memory; 0: off)")
}

// Resumed checks the flags and loads the -resume checkpoint, or returns nil
// without one. Its model is the model to train, for its Iterations unless
// told otherwise; its config must be want but for the wiring seed (the
// checkpoint holds the wiring).
func (o *LongRun) Resumed(want dlca.Config) (*Checkpoint, error) {
	if o.Recompute < 0 {
		return nil, fmt.Errorf("-recompute %d: must not be negative (0 turns it off; about the square root of the steps saves the most memory)", o.Recompute)
	}
	if o.Every < 0 {
		return nil, fmt.Errorf("-checkpoint-every %d: must not be negative (0: only at the end and on interrupt)", o.Every)
	}
	if o.MaxMemory != "" {
		if _, err := ParseBytes(o.MaxMemory); err != nil {
			return nil, fmt.Errorf("-max-memory: %w", err)
		}
	}
	if o.Resume == "" {
		return nil, nil
	}
	c, err := LoadCheckpoint(o.Resume)
	if err != nil {
		return nil, err
	}
	got := c.Model.Config
	got.Seed = want.Seed
	if got.String() != want.String() {
		return nil, fmt.Errorf("%s: the checkpoint is of %q, whose model has config %v; this experiment's is %v: resume it as %q, with the dlca that started it", o.Resume, c.Label, c.Model.Config, want, c.Label)
	}
	return c, nil
}

// Prepare sets setup's recomputation and the garbage collector, and
// refuses, with a suggestion, a run whose estimated memory exceeds
// -max-memory or the memory this process may take (MemoryLimit).
func (o *LongRun) Prepare(setup *Setup, height, width int) error {
	setup.Recompute = o.Recompute
	return CheckMemory(*setup, height, width, o.MaxMemory) // memory.go
}

// Start makes the run's checkpointer (saving to -checkpoint, or to
// checkpoint.json in outDir), resuming from from if not nil, and reports
// failed saves on warn. A SIGUSR1 asks for a checkpoint at the end of the
// current iteration (on Unix). Call the returned function when training
// ends.
func (o *LongRun) Start(outDir, label string, eng Engine, run *Run, from *Checkpoint, warn io.Writer) (stop func(), err error) {
	path := o.Checkpoint
	if path == "" {
		path = filepath.Join(outDir, "checkpoint.json")
	}
	if err := CheckWritable(filepath.Dir(path)); err != nil {
		return nil, err
	}
	if _, ok := eng.(Resumable); !ok && from == nil {
		fmt.Fprintln(warn, "warning: this engine cannot save checkpoints; training without them")
		return func() {}, nil
	}
	k, err := NewCheckpointer(path, o.Every, label, eng, run, from)
	if err != nil {
		return nil, err
	}
	k.Report = func(path string, it int, err error) {
		if err != nil {
			fmt.Fprintf(warn, "warning: checkpoint at iteration %d not saved (training goes on; the previous one is intact): %v\n", it, err)
		}
	}
	o.k = k
	return onDemand(k), nil
}

// Metrics returns the metrics of every iteration, those before a resume
// included; trained are those Train returned.
func (o *LongRun) Metrics(trained []Metrics) []Metrics {
	if o.k == nil {
		return trained
	}
	return o.k.Metrics()
}

// Stopped handles Train's error err: an interrupted run (ctx cancelled by
// SIGINT or SIGTERM) saves a checkpoint and says how to resume. Any other
// error (a NaN, say) saves nothing, so the last checkpoint stays the last
// good state, and says where that is.
func (o *LongRun) Stopped(err error, resume string) error {
	if o.k == nil {
		return err
	}
	if errors.Is(err, context.Canceled) {
		if serr := o.k.Save(); serr != nil {
			return fmt.Errorf("interrupted after iteration %d, and the checkpoint could not be saved: %w", o.k.Iteration(), serr)
		}
		return fmt.Errorf("interrupted after iteration %d; saved checkpoint %s; go on with: %s -resume %s", o.k.Iteration(), o.k.Path, resume, o.k.Path)
	}
	if o.k.saved >= 0 {
		return fmt.Errorf("%w\nthe last good checkpoint is %s (iteration %d)", err, o.k.Path, o.k.saved)
	}
	return err
}

// CheckWritable returns an error if no file can be created in dir; it
// creates and removes a temporary file, touching nothing else.
func CheckWritable(dir string) error {
	f, err := os.CreateTemp(dir, ".dlca-write-check-*")
	if err != nil {
		return fmt.Errorf("cannot write into %s: %w; choose a directory you can write to", dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}
