package dlca

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/gates"
)

// Model is a differentiable logic cellular automaton: the perception kernels
// and the update network of one cell, applied to every cell of a grid.
type Model struct {
	Config Config
	// Perception holds the kernel layers; each is a gates.Layer with
	// Groups = Config.Kernels (all kernels share the wiring) applied to the
	// rows (cell, channel). Layer 0 reads the 3x3 neighbourhood.
	Perception []*gates.Layer
	// Update holds the update network's layers (Groups = 1), applied to the
	// rows (cell); its input is described in the package documentation.
	Update []*gates.Layer
	// Experiment, when not nil, is the JSON record of the experiment that
	// trained the model (package experiments writes and reads it; this
	// package only keeps it): a model file carries its run's settings.
	Experiment json.RawMessage
}

// New builds a model from a validated config: wiring drawn from
// rand.NewPCG(cfg.Seed, 0) in layer order (perception, then update) and
// logits PassThrough on op A, 0 elsewhere. It returns cfg.Validate's error.
func New(cfg Config, dtype autograd.DType) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0))
	init := gates.Init{PassThrough: cfg.PassThrough}
	m := &Model{Config: cfg}
	for i := 1; i < len(cfg.KernelLayers); i++ {
		in, out := cfg.KernelLayers[i-1], cfg.KernelLayers[i]
		// NOTE: a Moore wiring is drawn for every perception layer and
		// thrown away for layers 2 and up. The draw stays because every
		// seed's model depends on the order of the draws from rng: the
		// wirings (and Gaussian initial logits) of all later layers. Saved
		// model files and checkpoints would still load the same (they store
		// their wiring), but removing the draw would give every seed another
		// model, so every training run would change: the README's
		// checkerboard (seed 23), every run in docs/RESULTS.md (retrain and
		// regenerate), and the tests that pin a seed's results.
		w := gates.MooreWiring(rng)
		if i > 1 {
			var err error
			if w, err = gates.UniqueWiring(in, out, rng); err != nil {
				return nil, fmt.Errorf("dlca: perception layer %d: %w", i-1, err)
			}
		}
		m.Perception = append(m.Perception, gates.NewLayer(fmt.Sprintf("perception/%d", i-1), in, w, cfg.Kernels, init, dtype, rng))
	}
	in := cfg.UpdateInputs()
	for i, out := range cfg.UpdateLayers {
		w, err := gates.UniqueWiring(in, out, rng)
		if err != nil {
			return nil, fmt.Errorf("dlca: update layer %d: %w", i, err)
		}
		m.Update = append(m.Update, gates.NewLayer(fmt.Sprintf("update/%d", i), in, w, 1, init, dtype, rng))
		in = out
	}
	return m, nil
}

// Layers returns the perception layers followed by the update layers.
func (m *Model) Layers() []*gates.Layer {
	return append(append([]*gates.Layer{}, m.Perception...), m.Update...)
}

// Params returns every layer's logits, in Layers order: what an optimiser
// trains.
func (m *Model) Params() []*autograd.Tensor {
	var ps []*autograd.Tensor
	for _, l := range m.Layers() {
		ps = append(ps, l.Logits)
	}
	return ps
}

// DType returns the element type of the model's logits.
func (m *Model) DType() autograd.DType { return m.Perception[0].Logits.DType() }

// ActiveGates counts the gates whose most likely op is neither pass-through
// (A nor B), over every layer and every kernel (not every channel): the
// paper's measure of circuit size.
func (m *Model) ActiveGates() int {
	n := 0
	for _, l := range m.Layers() {
		n += l.ActiveGates()
	}
	return n
}

// NumGates is the number of gates of one kernel set and update network,
// counted like ActiveGates.
func (m *Model) NumGates() int {
	n := 0
	for _, l := range m.Layers() {
		n += l.Groups * l.Out
	}
	return n
}

// Clone returns a deep copy of the model with fresh logit tensors that
// require a gradient like the originals.
func (m *Model) Clone() *Model {
	c := &Model{Config: m.Config, Experiment: slices.Clone(m.Experiment)}
	c.Config.KernelLayers = append([]int(nil), m.Config.KernelLayers...)
	c.Config.UpdateLayers = append([]int(nil), m.Config.UpdateLayers...)
	clone := func(l *gates.Layer) *gates.Layer {
		w := gates.Wiring{A: append([]int32(nil), l.Wiring.A...), B: append([]int32(nil), l.Wiring.B...)}
		logits := l.Logits.Clone()
		logits.SetRequiresGrad(l.Logits.RequiresGrad())
		return &gates.Layer{Name: l.Name, In: l.In, Out: l.Out, Groups: l.Groups, Wiring: w, Logits: logits}
	}
	for _, l := range m.Perception {
		c.Perception = append(c.Perception, clone(l))
	}
	for _, l := range m.Update {
		c.Update = append(c.Update, clone(l))
	}
	return c
}
