package bptt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"sync/atomic"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/optim"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/internal/jsonfile"
	"github.com/dlca/dlca/internal/safefile"
)

// CheckpointFormat and CheckpointVersion identify checkpoint files.
// Version 2 added Settings; version 1 files (without them) still read.
const (
	CheckpointFormat  = "dlca-checkpoint"
	CheckpointVersion = 2
)

// Checkpoint is a training run between two iterations: everything Train
// needs to go on exactly as if it had never stopped.
type Checkpoint struct {
	// Label names what is trained (the experiment); Seed and Iterations are
	// the run's, Iteration the number of iterations done.
	Label      string
	Seed       uint64
	Iterations int
	Iteration  int
	Model      *dlca.Model
	Optimizer  optim.State
	// RNG is the run's random source (Run.RNG) after Iteration iterations,
	// as rand.PCG.MarshalBinary writes it.
	RNG     []byte
	Metrics []Metrics // of iterations 1..Iteration
	// Settings are the settings of the command that started the run, by
	// flag name, so that a command can resume it from the checkpoint alone.
	// This package stores them and never reads them; nil in a version 1
	// file.
	Settings map[string]string
}

// Resumable is an engine whose optimiser state can be saved and restored,
// which checkpoints need. The CPU engine is one.
type Resumable interface {
	Engine
	OptimizerState() (optim.State, error)
	LoadOptimizerState(optim.State) error
}

// OptimizerState implements Resumable.
func (e *CPUEngine) OptimizerState() (optim.State, error) { return e.opt.State(), nil }

// LoadOptimizerState implements Resumable.
func (e *CPUEngine) LoadOptimizerState(s optim.State) error { return e.opt.LoadState(s) }

// Resume prepares a run to go on from c on eng, an engine built from a
// setup whose model is c.Model: it loads the optimiser state and sets
// run.Start and run.RNG.
func (c *Checkpoint) Resume(eng Engine, run *Run) error {
	r, ok := eng.(Resumable)
	if !ok {
		return fmt.Errorf("bptt: this engine cannot resume from a checkpoint (its optimiser state is not accessible); resume on the CPU engine")
	}
	if c.Iteration > run.Iterations {
		return fmt.Errorf("bptt: the checkpoint is at iteration %d, past the %d iterations asked for; ask for more", c.Iteration, run.Iterations)
	}
	pcg := new(rand.PCG)
	if err := pcg.UnmarshalBinary(c.RNG); err != nil {
		return fmt.Errorf("bptt: checkpoint random state: %w", err)
	}
	if err := r.LoadOptimizerState(c.Optimizer); err != nil {
		return fmt.Errorf("bptt: checkpoint optimiser state: %w", err)
	}
	run.Start, run.RNG = c.Iteration, pcg
	return nil
}

// fileCheckpoint is the JSON form of a checkpoint file. The model is a
// whole model file (docs/model-format.md), whose logits are float32; a
// float64 model's exact logits follow in Logits64.
type fileCheckpoint struct {
	Format     string            `json:"format" jsonfile:"required"`
	Version    int               `json:"version" jsonfile:"required"`
	Label      string            `json:"label" jsonfile:"required"`
	Seed       uint64            `json:"seed" jsonfile:"required"`
	Iterations int               `json:"iterations" jsonfile:"required"`
	Iteration  int               `json:"iteration" jsonfile:"required"`
	DType      string            `json:"dtype" jsonfile:"required"`
	Model      json.RawMessage   `json:"model" jsonfile:"required"`
	Logits64   [][]float64       `json:"logits64,omitempty"`
	Optimizer  optim.State       `json:"optimizer" jsonfile:"required"`
	RNG        []byte            `json:"rng" jsonfile:"required"`
	Metrics    []Metrics         `json:"metrics" jsonfile:"required"`
	Settings   map[string]string `json:"settings,omitempty"`
}

// Write writes c as a checkpoint file (JSON) to w.
func (c *Checkpoint) Write(w io.Writer) error {
	var model bytes.Buffer
	if err := c.Model.Write(&model); err != nil {
		return err
	}
	f := fileCheckpoint{Format: CheckpointFormat, Version: CheckpointVersion, Label: c.Label, Seed: c.Seed,
		Iterations: c.Iterations, Iteration: c.Iteration, DType: "float32", Model: model.Bytes(),
		Optimizer: c.Optimizer, RNG: c.RNG, Metrics: c.Metrics, Settings: c.Settings}
	if c.Model.DType() == autograd.Float64 {
		f.DType = "float64"
		for _, p := range c.Model.Params() {
			f.Logits64 = append(f.Logits64, p.Float64s())
		}
	}
	return json.NewEncoder(w).Encode(f)
}

// Save writes c to path atomically (safefile.Write: temporary file,
// fsync, rename), so that a crash or a kill during the save leaves the
// previous checkpoint intact. It refuses a model with a non-finite logit,
// so a diverged run never overwrites its last good checkpoint.
func (c *Checkpoint) Save(path string) error {
	if err := CheckLogits(c.Model); err != nil {
		return fmt.Errorf("bptt: not saving checkpoint %s: %w", path, err)
	}
	return safefile.Write(path, c.Write)
}

// LoadCheckpoint reads a checkpoint file.
func LoadCheckpoint(path string) (*Checkpoint, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("bptt: cannot open checkpoint: %w", err)
	}
	defer f.Close()
	c, err := ReadCheckpoint(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// ReadCheckpoint decodes a checkpoint file from r, checking every part, so
// that a checkpoint that reads is one that resumes.
func ReadCheckpoint(r io.Reader) (*Checkpoint, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("bptt: reading checkpoint: %w", err)
	}
	// The format and version first, leniently, so that a model file or a
	// newer checkpoint is named as such rather than as bad JSON.
	// A missing one is left to the strict decoding, which names it.
	var head struct {
		Format  *string `json:"format"`
		Version *int    `json:"version"`
	}
	if json.Unmarshal(data, &head) == nil {
		switch {
		case head.Format != nil && *head.Format != CheckpointFormat:
			return nil, fmt.Errorf("bptt: not a checkpoint: format is %q, want %q (pass a checkpoint file, such as the run's checkpoint.json)", *head.Format, CheckpointFormat)
		case head.Version != nil && *head.Version != 1 && *head.Version != CheckpointVersion:
			return nil, fmt.Errorf("bptt: checkpoint version %d: this program reads versions 1 to %d only", *head.Version, CheckpointVersion)
		}
	}
	var f fileCheckpoint
	if err := jsonfile.Decode(bytes.NewReader(data), &f); err != nil {
		switch {
		case errors.Is(err, jsonfile.ErrEmpty):
			return nil, errors.New("bptt: empty checkpoint file")
		case errors.Is(err, jsonfile.ErrTruncated):
			return nil, errors.New("bptt: checkpoint file is truncated; use an earlier checkpoint or start again")
		case errors.Is(err, jsonfile.ErrBOM), errors.Is(err, jsonfile.ErrTrailing):
			return nil, fmt.Errorf("bptt: checkpoint file: %w", err)
		}
		return nil, fmt.Errorf("bptt: checkpoint file is not valid JSON of the %s format: %w", CheckpointFormat, err)
	}
	switch {
	case f.Iteration < 0 || f.Iterations < f.Iteration:
		return nil, fmt.Errorf("bptt: checkpoint at iteration %d of %d: the file is damaged", f.Iteration, f.Iterations)
	case len(f.Metrics) > f.Iteration:
		return nil, fmt.Errorf("bptt: checkpoint holds %d iterations' metrics at iteration %d: the file is damaged", len(f.Metrics), f.Iteration)
	case len(f.RNG) == 0:
		return nil, errors.New("bptt: checkpoint has no random state: the file is damaged")
	case f.Version == 1 && f.Settings != nil:
		return nil, errors.New("bptt: checkpoint version 1 with settings (a field of version 2): the file is damaged")
	}
	if err := checkOptimizer(f.Optimizer); err != nil {
		return nil, err
	}
	if err := new(rand.PCG).UnmarshalBinary(f.RNG); err != nil {
		return nil, fmt.Errorf("bptt: checkpoint random state: %w", err)
	}
	dtype := autograd.Float32
	switch f.DType {
	case "float32":
	case "float64":
		dtype = autograd.Float64
	default:
		return nil, fmt.Errorf("bptt: checkpoint dtype %q: want float32 or float64", f.DType)
	}
	m, err := dlca.Read(bytes.NewReader(f.Model), dtype)
	if err != nil {
		return nil, fmt.Errorf("bptt: checkpoint model: %w", err)
	}
	if err := setLogits64(m, f.Logits64); err != nil {
		return nil, err
	}
	return &Checkpoint{Label: f.Label, Seed: f.Seed, Iterations: f.Iterations, Iteration: f.Iteration,
		Model: m, Optimizer: f.Optimizer, RNG: f.RNG, Metrics: f.Metrics, Settings: f.Settings}, nil
}

// setLogits64 restores a float64 model's exact logits.
func setLogits64(m *dlca.Model, logits [][]float64) error {
	params := m.Params()
	if m.DType() == autograd.Float32 {
		if logits != nil {
			return errors.New("bptt: checkpoint of a float32 model holds float64 logits: the file is damaged")
		}
		return nil
	}
	if len(logits) != len(params) {
		return fmt.Errorf("bptt: checkpoint has float64 logits for %d layers, the model has %d: the file is damaged", len(logits), len(params))
	}
	for i, p := range params {
		if len(logits[i]) != p.Len() {
			return fmt.Errorf("bptt: checkpoint has %d float64 logits for layer %d of %d: the file is damaged", len(logits[i]), i, p.Len())
		}
		for j, v := range logits[i] {
			p.SetAt(j, v)
		}
	}
	return CheckLogits(m)
}

// Checkpointer saves a run's checkpoints to Path: as an observer every
// Every iterations and at the last, and on demand (Save, or Request from
// any goroutine for the end of the current iteration).
type Checkpointer struct {
	Path  string
	Every int // 0: only at the last iteration and on demand
	// Report, if not nil, hears of every save an observer made: a failed
	// periodic save does not stop training, so the caller should say so.
	Report func(path string, iteration int, err error)
	// Settings are written into every checkpoint (Checkpoint.Settings).
	Settings map[string]string

	label      string
	seed       uint64
	iterations int
	engine     Resumable
	rng        *rand.PCG
	iteration  int
	metrics    []Metrics
	requested  atomic.Bool
	saved      int // iteration of the last checkpoint written, -1 for none
}

// NewCheckpointer returns the checkpointer of run on eng, labelled label
// (the experiment), and adds it to run's observers. It gives run a random
// source (Run.RNG) if it has none. If from is not nil the run resumes from
// it (Checkpoint.Resume); its label must be label.
func NewCheckpointer(path string, every int, label string, eng Engine, run *Run, from *Checkpoint) (*Checkpointer, error) {
	r, ok := eng.(Resumable)
	if !ok {
		return nil, fmt.Errorf("bptt: this engine cannot save checkpoints (its optimiser state is not accessible); train on the CPU engine")
	}
	if every < 0 {
		return nil, fmt.Errorf("bptt: checkpoint every %d iterations: must not be negative (0 = only at the end and on demand)", every)
	}
	k := &Checkpointer{Path: path, Every: every, label: label, seed: run.Seed, iterations: run.Iterations, engine: r, saved: -1}
	if from != nil {
		if from.Label != label {
			return nil, fmt.Errorf("bptt: the checkpoint is of %q, not %q: resume it as what it was started as", from.Label, label)
		}
		if from.Seed != run.Seed {
			return nil, fmt.Errorf("bptt: the checkpoint's run has seed %d, not %d: resume it with the seed it was started with", from.Seed, run.Seed)
		}
		if err := from.Resume(eng, run); err != nil {
			return nil, err
		}
		k.iteration = from.Iteration
		k.metrics = append([]Metrics(nil), from.Metrics...)
	}
	if run.RNG == nil {
		run.RNG = rand.NewPCG(run.Seed, 1)
	}
	k.rng = run.RNG
	run.Observers = append(run.Observers, k.Observe)
	return k, nil
}

// Observe is the checkpointer's Observer.
func (k *Checkpointer) Observe(e Event) {
	k.iteration = e.Iteration
	k.metrics = append(k.metrics, e.Metrics)
	due := k.Every > 0 && e.Iteration%k.Every == 0 || e.Iteration == e.Iterations
	if due || k.requested.Swap(false) {
		err := k.Save()
		if k.Report != nil {
			k.Report(k.Path, k.iteration, err)
		}
	}
}

// Request asks for a checkpoint at the end of the current iteration. It
// may be called from any goroutine (a signal handler's, say).
func (k *Checkpointer) Request() { k.requested.Store(true) }

// Iteration returns the number of iterations done.
func (k *Checkpointer) Iteration() int { return k.iteration }

// Metrics returns the metrics of every iteration done, those before a
// resume included.
func (k *Checkpointer) Metrics() []Metrics { return k.metrics }

// Saved returns the iteration of the last checkpoint this checkpointer
// wrote, or -1 if it wrote none.
func (k *Checkpointer) Saved() int { return k.saved }

// Save writes the checkpoint of the run as it stands (call it between
// iterations: from an observer, or after Train returned).
func (k *Checkpointer) Save() error {
	if k.saved == k.iteration {
		return nil
	}
	m, err := k.engine.Model()
	if err != nil {
		return err
	}
	opt, err := k.engine.OptimizerState()
	if err != nil {
		return err
	}
	rng, err := k.rng.MarshalBinary()
	if err != nil {
		return err
	}
	c := &Checkpoint{Label: k.label, Seed: k.seed, Iterations: k.iterations, Iteration: k.iteration,
		Model: m, Optimizer: opt, RNG: rng, Metrics: k.metrics, Settings: k.Settings}
	if err := c.Save(k.Path); err != nil {
		return err
	}
	k.saved = k.iteration
	return nil
}
