package runctl

import (
	"io"

	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/dlca"
)

// Job is what a training command hands Launch: the experiment's model and
// how to train it, and the command's own checks.
type Job struct {
	Config dlca.Config // the experiment's model, which a resumed checkpoint's must be
	// New makes the model to train when the run does not resume.
	New func() (*dlca.Model, error)
	// Setup and Run are the experiment's (experiments.Experiment's);
	// Launch sets the setup's recomputation and adds the checkpointer to
	// the run's observers.
	Setup         func(*dlca.Model) bptt.Setup
	Run           bptt.Run
	Height, Width int // the training grid, for the memory estimate
	// SelectEngine returns the engine -device names and the device
	// chosen (gpu.SelectEngine, or the CPU's alone without cgo).
	SelectEngine func(device string, setup bptt.Setup, log io.Writer) (bptt.Engine, string, error)
	// Check, if set, refuses what the command cannot do with the model
	// before the engine is chosen (a memory estimate of its own, say).
	Check func(m *dlca.Model, setup bptt.Setup) error
	// Accept, if set, refuses what the command cannot do on the chosen
	// engine.
	Accept func(eng bptt.Engine, device string) error
}

// Launched is a long run ready for its first iteration: hand Engine, Setup
// and Run to bptt.Train, then call End with its error, and Close (or
// Release, where something else closes the engine).
type Launched struct {
	Model  *dlca.Model // the model trained: the checkpoint's when resuming
	Engine bptt.Engine
	Device string // the device chosen
	Setup  bptt.Setup
	Run    bptt.Run

	o    *LongRun
	stop func()
}

// Launch is the long run's sequence before its first iteration, in order:
// the resumed checkpoint's model must be the job's (CheckModel); the model
// (the checkpoint's, or job.New's); the setup and the memory it needs
// (Prepare, then job.Check); the engine (job.SelectEngine, then
// job.Accept); the folder, its lock and the checkpoints (Start). resumed is
// what Resumed returned. On an error nothing is left behind (the engine is
// closed, the folder Start made removed).
func (o *LongRun) Launch(job Job, resumed *bptt.Checkpoint, warn io.Writer) (*Launched, error) {
	if err := o.CheckModel(resumed, job.Config); err != nil {
		return nil, err
	}
	var m *dlca.Model
	if resumed != nil {
		m = resumed.Model
	} else {
		var err error
		if m, err = job.New(); err != nil {
			return nil, err
		}
	}
	setup := job.Setup(m)
	if err := o.Prepare(&setup, job.Run, job.Height, job.Width); err != nil {
		return nil, err
	}
	if job.Check != nil {
		if err := job.Check(m, setup); err != nil {
			return nil, err
		}
	}
	eng, device, err := job.SelectEngine(o.Device, setup, warn)
	if err != nil {
		return nil, err
	}
	if job.Accept != nil {
		if err := job.Accept(eng, device); err != nil {
			eng.Close()
			return nil, err
		}
	}
	l := &Launched{Model: m, Engine: eng, Device: device, Setup: setup, Run: job.Run, o: o}
	if l.stop, err = o.Start(eng, &l.Run, resumed, warn); err != nil {
		eng.Close()
		return nil, err
	}
	return l, nil
}

// End ends the run with bptt.Train's error err: Stopped's error for one
// (an interrupted run saves its checkpoint and says how to go on), else
// Finished's (the final checkpoint must be on disk). Save the model
// before End, so that what follows cannot lose the training. End does not
// release the run: call Close or Release.
func (l *Launched) End(err error) error {
	if err != nil {
		return l.o.Stopped(err)
	}
	return l.o.Finished()
}

// Release releases the checkpoints' signal handler and the locks; the
// engine stays open, for whoever closes it (viewer.Training does).
func (l *Launched) Release() { l.stop() }

// Close releases what Launch took: Release, and the engine. The output
// folder stays.
func (l *Launched) Close() {
	l.stop()
	l.Engine.Close()
}
