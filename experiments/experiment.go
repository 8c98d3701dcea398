package experiments

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
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
	LR           float64
	Seed         uint64 // seeds the batches (bptt.Run.Seed); Model.Seed seeds the wiring
	LossChannels []int
	Async        bool
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
}

// Check is one test of a trained model, such as running it on a larger grid.
type Check struct {
	Name        string
	Description string
	Run         func(e *Experiment, m *dlca.Model) CheckResult
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
	return bptt.Setup{Model: m, Batch: e.Batch, Steps: e.Steps, LossChannels: e.LossChannels, Async: e.Async, Optimizer: bptt.PaperOptimizer(e.LR)}
}

// Source returns the experiment's batch source: Batch fresh initial states
// per iteration and the target of the training grid.
func (e *Experiment) Source() bptt.Source {
	h, w, c := e.Model.Height, e.Model.Width, e.Model.Channels
	var target []float32
	if e.TargetOf == nil {
		target = e.Target(h, w)
	}
	return func(rng *rand.Rand) *bptt.Batch {
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

// Run returns the bptt run of e with the given observers.
func (e *Experiment) Run(obs ...bptt.Observer) bptt.Run {
	return bptt.Run{Iterations: e.Iterations, Seed: e.Seed, Source: e.Source(), Observers: obs}
}

var registry = map[string]*Experiment{}

// Register adds an experiment; each experiment's file calls it from init.
// It panics on a duplicate name or an invalid config (a programmer error).
func Register(e *Experiment) {
	if _, dup := registry[e.Name]; dup {
		panic(fmt.Sprintf("experiments: %q registered twice", e.Name))
	}
	if err := e.Model.Validate(); err != nil {
		panic(fmt.Sprintf("experiments: %q: %v", e.Name, err))
	}
	registry[e.Name] = e
}

// Names returns the registered experiments' names, sorted.
func Names() []string {
	var names []string
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Get returns the named experiment (a copy, safe to modify), or an error
// listing the known ones.
func Get(name string) (*Experiment, error) {
	e, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("unknown experiment %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	c := *e
	c.Model.KernelLayers = slices.Clone(e.Model.KernelLayers)
	c.Model.UpdateLayers = slices.Clone(e.Model.UpdateLayers)
	c.LossChannels = slices.Clone(e.LossChannels)
	return &c, nil
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
