package runctl

import (
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/dlca"
)

// The settings a checkpoint records (bptt.Checkpoint.Settings), by flag
// name, besides those it holds anyway: the experiment (Label), the seed,
// the iterations, and the wiring seed (its model's config). -resume,
// -force and -max-memory are about one process, not the run, and are not
// recorded.
const (
	setDevice     = "device"
	setOut        = "out"
	setCheckpoint = "checkpoint"
	setEvery      = "checkpoint-every"
	setRecompute  = "recompute"
	setConfig     = "config"
)

// settings returns what a checkpoint of this run records. The paths are
// absolute, so that the run resumes from any working directory.
func (o *LongRun) settings() map[string]string {
	s := map[string]string{
		setDevice:     o.Device,
		setOut:        absolute(o.Out),
		setCheckpoint: absolute(o.Checkpoint),
		setEvery:      strconv.Itoa(o.Every),
		setRecompute:  strconv.Itoa(o.Recompute),
	}
	if o.Config != "" {
		s[setConfig] = o.Config
	}
	return s
}

// RecordedConfig returns the experiment file a checkpoint's run recorded
// (LongRun.Config), or "" if it recorded none (a checkpoint of a built-in
// experiment before files existed, or of a command that does not say).
func RecordedConfig(c *bptt.Checkpoint) string {
	return c.Settings[setConfig]
}

// absolute returns path made absolute, or "" for "".
func absolute(path string) string {
	if path == "" {
		return ""
	}
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// Resumed checks the flags and, with -resume, loads the checkpoint and takes
// the run's settings from it: every setting not given on the command line
// becomes the checkpoint's. A given experiment, seed or wiring seed that
// contradicts the checkpoint is refused, naming both values; -device, -out,
// -checkpoint, -checkpoint-every and -recompute may be changed, and
// -iterations may grow (training a run further). A checkpoint of format
// version 1 records only the experiment, seeds and iterations: -out must
// then be given. Without -resume it returns nil.
func (o *LongRun) Resumed() (*bptt.Checkpoint, error) {
	if err := o.checkFlags(); err != nil {
		return nil, err
	}
	if o.Resume == "" {
		return nil, nil
	}
	c, err := bptt.LoadCheckpoint(o.Resume)
	if err != nil {
		return nil, err
	}
	// What decides the model trained must match.
	if err := o.take("experiment", &o.Experiment, c.Label); err != nil {
		return nil, err
	}
	if err := o.takeUint("seed", &o.Seed, c.Seed); err != nil {
		return nil, err
	}
	if err := o.takeUint("wiring-seed", &o.WiringSeed, c.Model.Config.Seed); err != nil {
		return nil, err
	}
	if !o.given["iterations"] {
		o.Iterations = c.Iterations
	}
	// Where to train (the engines resume each other's checkpoints), where
	// and how often to save may change.
	s := c.Settings
	o.takeString(setDevice, &o.Device, s)
	o.takeString(setOut, &o.Out, s)
	o.takeString(setCheckpoint, &o.Checkpoint, s)
	if err := o.takeInt(setEvery, &o.Every, s); err != nil {
		return nil, err
	}
	if err := o.takeInt(setRecompute, &o.Recompute, s); err != nil {
		return nil, err
	}
	return c, o.checkFlags()
}

// take sets *v to the checkpoint's value of setting name unless the flag
// was given, and refuses a given value that differs.
func (o *LongRun) take(name string, v *string, recorded string) error {
	if !o.given[name] {
		*v = recorded
		return nil
	}
	if *v != recorded {
		return fmt.Errorf("-%s %s contradicts the checkpoint %s, whose run has %s %s: leave -%s out to go on with the run as it was started, or start a new run without -resume",
			name, *v, o.Resume, name, recorded, name)
	}
	return nil
}

func (o *LongRun) takeUint(name string, v *uint64, recorded uint64) error {
	s := strconv.FormatUint(*v, 10)
	if err := o.take(name, &s, strconv.FormatUint(recorded, 10)); err != nil {
		return err
	}
	*v = recorded
	return nil
}

// takeString sets *v to the checkpoint's setting name, if it records one
// and the flag was not given.
func (o *LongRun) takeString(name string, v *string, s map[string]string) {
	if recorded, ok := s[name]; ok && !o.given[name] {
		*v = recorded
	}
}

// takeInt sets *v to the checkpoint's setting name, if it records one and
// the flag was not given.
func (o *LongRun) takeInt(name string, v *int, s map[string]string) error {
	recorded, ok := s[name]
	if !ok || o.given[name] {
		return nil
	}
	n, err := strconv.Atoi(recorded)
	if err != nil {
		return fmt.Errorf("%s: setting %s is %q, not a number: the file is damaged", o.Resume, name, recorded)
	}
	*v = n
	return nil
}

// CheckModel refuses a checkpoint c whose model is not the one the
// experiment trains (want, a config whose wiring seed is the run's).
func (o *LongRun) CheckModel(c *bptt.Checkpoint, want dlca.Config) error {
	if c == nil || c.Model.Config.String() == want.String() {
		return nil
	}
	return fmt.Errorf("%s: the checkpoint is of %q, whose model has config %v; this experiment's is %v: resume it as %q, with the dlca that started it", o.Resume, c.Label, c.Model.Config, want, c.Label)
}
