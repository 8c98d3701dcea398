package experiments

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/dlca"
)

// Experiment is one of the paper's experiments as data: the model, the
// training settings, the data and the checks after training.
type Experiment struct {
	Name        string
	Description string
	Model       dlca.Config
	// Training settings (PAPER.md section 3).
	Batch        int
	Steps        int
	Iterations   int
	Optimizer    bptt.Optimizer
	Seed         uint64 // seeds the batches (bptt.Run.Seed); Model.Seed seeds the wiring
	LossChannels []int
	Async        bool
	// StraightThroughFrom is bptt.Run's: not the paper's method, 0 (off)
	// unless the configuration asks for it.
	StraightThroughFrom int
	// StatePenalty and StatePenaltyFrom are bptt.Run's: not the paper's
	// method, 0 (off) unless the configuration asks for it.
	StatePenalty     float64
	StatePenaltyFrom int
	// Colour says that channels 0, 1 and 2 are red, green and blue: pictures
	// paint them in colour instead of channel 0 in grey.
	Colour bool
	// Init fills one initial state [H, W, C] (c channels) from rng.
	Init func(rng *rand.Rand, h, w, c int) []float32
	// Target returns the wanted final values of the loss channels
	// [H, W, len(LossChannels)] on an h x w grid.
	Target func(h, w int) []float32
	// TargetOf, when not nil, is used instead of Target by experiments whose
	// target depends on the initial state (Game of Life): the wanted final
	// loss channels for one initial state init [H, W, C].
	TargetOf func(init []float32, h, w, c int) []float32
	// Checks run on a trained model (see Check).
	Checks []Check
	// Stop, when not nil, is asked before every step of a check's rollout:
	// when it returns true the check ends early (its result is to be
	// dropped), so that a long check can be interrupted.
	Stop func() bool
	// Config is the configuration the experiment was resolved from, the
	// record of the run (WriteTOML prints it as an experiment file).
	Config *Config
}

// Check is one test of a trained model, such as running it on a larger grid.
type Check struct {
	Name        string
	Description string
	Run         func(e *Experiment, m *dlca.Model) CheckResult
	// Side, Steps and Frames size the check for CheckMemory: its grid's
	// side, its rollout's steps and the states it keeps at most; Runs is
	// how many times it runs one after the other (0 counts as 1).
	Side, Steps, Frames, Runs int
}

// CheckResult is a check's outcome. Frames, when not nil, is the hard
// rollout it ran (for an animation).
type CheckResult struct {
	Name   string      `json:"name"`
	Passed bool        `json:"passed"`
	Wrong  int         `json:"wrong_cells"`
	Detail string      `json:"detail"`
	Frames []dlca.Bits `json:"-"`
	// Curve, when not nil, is a per-step measurement (an error curve) that
	// the command line plots.
	Curve []float64 `json:"curve,omitempty"`
}

// Setup returns the bptt setup of training model m on e.
func (e *Experiment) Setup(m *dlca.Model) bptt.Setup {
	return bptt.Setup{Model: m, Batch: e.Batch, Steps: e.Steps, LossChannels: e.LossChannels, Async: e.Async, Optimizer: e.Optimizer}
}

// Source returns the experiment's batch source: Batch fresh initial states
// per iteration and the target of the training grid.
func (e *Experiment) Source() bptt.Source {
	h, w, c := e.Model.Height, e.Model.Width, e.Model.Channels
	// NOTE: the fixed target is drawn at the first batch, not here: a
	// source is made before training checks that the grid fits in memory
	// (Run, then bptt.CheckMemory), and a target for a grid far too large
	// would end the process first.
	var target []float32
	return func(rng *rand.Rand) *bptt.Batch {
		if target == nil && e.TargetOf == nil {
			target = e.Target(h, w)
		}
		b := &bptt.Batch{Height: h, Width: w}
		for range e.Batch {
			init := e.Init(rng, h, w, c)
			b.Init = append(b.Init, init...)
			if e.TargetOf != nil {
				target = e.TargetOf(init, h, w, c)
			}
			b.Target = append(b.Target, target...)
		}
		return b
	}
}

// Run returns the bptt run of e with the given observers. With the JAX
// stream (Model.RNG "jax") its batches come from JAXDraw.
func (e *Experiment) Run(obs ...bptt.Observer) bptt.Run {
	run := bptt.Run{Iterations: e.Iterations, Seed: e.Seed, Source: e.Source(), Observers: obs, StraightThroughFrom: e.StraightThroughFrom, StatePenalty: e.StatePenalty, StatePenaltyFrom: e.StatePenaltyFrom}
	if e.Model.RNG == dlca.StreamJAX {
		run.Draw = e.JAXDraw()
	}
	return run
}

// registry holds the built-in experiments.
var registry = map[string]*Config{}

// Register adds a built-in experiment; each experiment's file calls it from
// init, with Defaults changed where the experiment differs. It panics on a
// duplicate name or a configuration that does not resolve (a programmer
// error).
func Register(c Config) {
	if _, dup := registry[c.Name]; dup {
		panic(fmt.Sprintf("experiments: %q registered twice", c.Name))
	}
	if _, err := c.Resolve(); err != nil {
		panic(fmt.Sprintf("experiments: %q: %v", c.Name, err))
	}
	registry[c.Name] = c.Clone()
}

// Names returns the registered experiments' names, sorted.
func Names() []string {
	return slices.Sorted(maps.Keys(registry))
}

// Builtin returns the configuration of the named built-in experiment (a
// copy, safe to modify), or an error listing the known ones.
func Builtin(name string) (*Config, error) {
	c, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("unknown experiment %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	return c.Clone(), nil
}

// Get returns the named built-in experiment, resolved (a new one each
// time, safe to modify), or an error listing the known ones.
func Get(name string) (*Experiment, error) {
	c, err := Builtin(name)
	if err != nil {
		return nil, err
	}
	return c.Resolve()
}

// RandomBits is the Init of experiments that start from noise: every bit of
// every cell uniform in {0, 1}.
func RandomBits(rng *rand.Rand, h, w, c int) []float32 {
	s := make([]float32, h*w*c)
	for i := range s {
		s[i] = float32(rng.IntN(2))
	}
	return s
}

// repeat returns n copies of v.
func repeat(v, n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = v
	}
	return s
}
