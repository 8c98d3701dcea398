// Package runctl is the plumbing the training commands (dlca train,
// dlca-view -train) share for long runs: the one sequence a long run goes
// through (LongRun.Launch, Launched.End), their flags, resuming a run from
// its checkpoint alone, refusing to overwrite a run, the output folder's
// lock, checkpoints on SIGUSR1, and the messages that say how to go on.
// Package bptt does the training and the checkpoints; it registers no flags,
// installs no signal handlers and prints nothing, so this package does.
package runctl

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/internal/memlimit"
)

// LongRun holds a training command's settings and, once Start has run, its
// checkpointer and lock. The command binds its own flags for the first six
// fields, calls AddFlags for the rest, and after parsing calls, in order,
// Given, Resumed (the checkpoint to go on from) and Launch, which runs the
// rest of the sequence (CheckModel, Prepare, the engine, Start); after
// bptt.Train, Launched.End (Finished, or Stopped for an error).
type LongRun struct {
	// Command is how the user runs the command, for the messages that
	// say how to go on ("dlca train").
	Command string

	Experiment string
	Out        string // output folder
	Iterations int    // 0: the experiment's
	Seed       uint64 // of the batches
	WiringSeed uint64
	Device     string

	Checkpoint string // checkpoint file; "" = checkpoint.json in Out
	Every      int    // checkpoint every Every iterations (0: at the end and on interrupt only)
	Resume     string // checkpoint to resume from
	Force      bool   // start over in a folder that holds a run
	MaxMemory  string // memory limit ("" = MemAvailable)
	Recompute  int    // bptt.Setup.Recompute
	// Config is the run's whole configuration as an experiment file
	// (experiments.Config.WriteTOML): checkpoints record it, so that a run
	// from a file resumes from its checkpoint alone (RecordedConfig).
	Config string

	given   map[string]bool // settings given on the command line, by flag name
	k       *bptt.Checkpointer
	release func() // the lock and the folder Start made
}

// AddFlags registers -checkpoint, -checkpoint-every, -resume, -force,
// -max-memory and -recompute on fs.
func (o *LongRun) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.Checkpoint, "checkpoint", "", "checkpoint file (default checkpoint.json in -out)")
	fs.IntVar(&o.Every, "checkpoint-every", 50, "save a checkpoint every N iterations (0: only at the end, on SIGINT/SIGTERM and on SIGUSR1)")
	fs.StringVar(&o.Resume, "resume", "", "go on with the run saved in this checkpoint file, with its settings (a larger -iterations trains it further)")
	fs.BoolVar(&o.Force, "force", false, "start over in an output folder that holds a run, replacing its checkpoint and outputs")
	fs.StringVar(&o.MaxMemory, "max-memory", "", "refuse to train if the estimated memory exceeds this (e.g. 2GiB; default: the available memory, or the room under the container's limit if less)")
	fs.IntVar(&o.Recompute, "recompute", 0, "gradient checkpointing over time: keep every Kth step's state, recompute the rest in backward (same gradients, less memory; 0: the engine chooses, recomputing step by step where that is faster)")
}

// Given records which flags of fs were set on the command line; extra
// names settings given some other way (dlca-view's -train gives the
// experiment).
func (o *LongRun) Given(fs *flag.FlagSet, extra ...string) {
	o.given = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { o.given[f.Name] = true })
	for _, name := range extra {
		o.given[name] = true
	}
}

// checkFlags refuses settings no run can have.
func (o *LongRun) checkFlags() error {
	switch {
	case o.Iterations < 0:
		return fmt.Errorf("-iterations %d: must not be negative", o.Iterations)
	case o.Recompute < 0:
		return fmt.Errorf("-recompute %d: must not be negative (0 lets the engine choose; about the square root of the steps saves the most memory)", o.Recompute)
	case o.Every < 0:
		return fmt.Errorf("-checkpoint-every %d: must not be negative (0: only at the end and on interrupt)", o.Every)
	}
	if o.MaxMemory != "" {
		if _, err := memlimit.ParseBytes(o.MaxMemory); err != nil {
			return fmt.Errorf("-max-memory: %w", err)
		}
	}
	return nil
}

// Prepare sets setup's recomputation and refuses, with a suggestion, a run whose estimated memory exceeds
// -max-memory or the memory this process may take (memlimit.MemoryLimit: the
// available memory, or the room under the container's limit if less).
func (o *LongRun) Prepare(setup *bptt.Setup, run bptt.Run, height, width int) error {
	setup.Recompute = o.Recompute
	return bptt.CheckMemory(*setup, run, height, width, o.MaxMemory)
}

// CheckpointPath is the file checkpoints go to.
func (o *LongRun) CheckpointPath() string {
	if o.Checkpoint == "" {
		return filepath.Join(o.Out, "checkpoint.json")
	}
	return o.Checkpoint
}

// ResumeCommand is the command line that goes on with the run whose
// checkpoint is path.
func (o *LongRun) ResumeCommand(path string) string {
	return o.Command + " -resume " + path
}

// Start readies the output folder and the run's checkpoints before the
// first iteration: it creates -out, locks it and the checkpoint file
// (CheckpointLock) against a second training,
// refuses a folder that holds another run (unless -force) and a checkpoint
// path that cannot be written, and makes the checkpointer, resuming from
// from if not nil. A SIGUSR1 asks for a checkpoint at the end of the
// current iteration (on Unix). Failed periodic saves are reported on warn.
// On an error Start leaves nothing behind (a folder it made is removed);
// otherwise call the returned function when the run ends.
func (o *LongRun) Start(eng bptt.Engine, run *bptt.Run, from *bptt.Checkpoint, warn io.Writer) (stop func(), err error) {
	undo, err := makeDir(o.Out)
	if err != nil {
		return nil, fmt.Errorf("cannot create the output directory: %w", err)
	}
	unlock, err := lock(o.Out)
	if err != nil {
		undo()
		return nil, err
	}
	release := func() { unlock(); undo() }
	defer func() {
		if err != nil {
			release()
		}
	}()
	if err := checkWritable(o.Out); err != nil {
		return nil, err
	}
	path := o.CheckpointPath()
	if err := checkCheckpointPath(path); err != nil {
		return nil, err
	}
	// The checkpoint has one owner, whatever -out each run names.
	unlockCheckpoint, err := lockCheckpoint(path)
	if err != nil {
		return nil, err
	}
	unlockOut := unlock
	unlock = func() { unlockCheckpoint(); unlockOut() }
	release = func() { unlock(); undo() }
	if err := o.refuseExisting(path, from); err != nil {
		return nil, err
	}
	ignoreBrokenPipe() // a training outlives whoever reads its output (a killed sweep)
	if _, ok := eng.(bptt.Resumable); !ok && from == nil {
		fmt.Fprintln(warn, "warning: this engine cannot save checkpoints; training without them")
		o.release = unlock
		return o.stop, nil
	}
	k, err := bptt.NewCheckpointer(path, o.Every, o.Experiment, eng, run, from)
	if err != nil && from != nil {
		// The checkpoint read, but does not fit this run (an optimiser
		// state of another kind or size): name the file.
		return nil, fmt.Errorf("cannot go on from checkpoint %s: %w; it does not belong to this run: check the file, or start a new run without -resume", o.Resume, err)
	}
	if err != nil {
		return nil, err
	}
	k.Settings = o.settings()
	k.Report = func(path string, it int, err error) {
		// A failed save at the last iteration is Finished's error.
		if err != nil && it < run.Iterations {
			fmt.Fprintf(warn, "warning: checkpoint at iteration %d not saved (training goes on; the previous one is intact): %v\n", it, err)
		}
	}
	o.k = k
	stopSignals := onDemand(k)
	o.release = func() { stopSignals(); unlock() }
	return o.stop, nil
}

// stop releases what Start took; the output folder stays.
func (o *LongRun) stop() {
	if o.release != nil {
		o.release()
		o.release = nil
	}
}

// Metrics returns the metrics of every iteration, those before a resume
// included; trained are those bptt.Train returned.
func (o *LongRun) Metrics(trained []bptt.Metrics) []bptt.Metrics {
	if o.k == nil {
		return trained
	}
	return o.k.Metrics()
}

// Finished returns an error if the run's final checkpoint is not on disk
// (the save at the last iteration failed, and failed again now): a run must
// not end with exit status 0 and no checkpoint.
func (o *LongRun) Finished() error {
	if o.k == nil {
		return nil
	}
	if err := o.k.Save(); err != nil {
		return fmt.Errorf("training finished, but its final checkpoint could not be saved: %w", err)
	}
	return nil
}

// Stopped handles bptt.Train's error err: an interrupted run (ctx cancelled
// by SIGINT or SIGTERM) saves a checkpoint and says how to resume. Any
// other error (a NaN, say) saves nothing, so the last checkpoint stays the
// last good state, and says where that is.
func (o *LongRun) Stopped(err error) error {
	if o.k == nil {
		return err
	}
	if errors.Is(err, context.Canceled) {
		if serr := o.k.Save(); serr != nil {
			return fmt.Errorf("interrupted after iteration %d, and the checkpoint could not be saved: %w", o.k.Iteration(), serr)
		}
		return fmt.Errorf("interrupted after iteration %d; saved checkpoint %s; go on with: %s", o.k.Iteration(), o.k.Path, o.ResumeCommand(o.k.Path))
	}
	if saved := o.k.Saved(); saved >= 0 {
		if errors.Is(err, autograd.ErrDeviceLost) { // nothing wrong with the run: go on
			return fmt.Errorf("%w\nthe last good checkpoint is %s (iteration %d); go on with: %s (add -device cpu if the GPU stays gone)", err, o.k.Path, saved, o.ResumeCommand(o.k.Path))
		}
		return fmt.Errorf("%w\nthe last good checkpoint is %s (iteration %d)", err, o.k.Path, saved)
	}
	return err
}
