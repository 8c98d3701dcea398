package bptt

import (
	"fmt"
	"slices"

	"github.com/dlca/dlca/dlca"
)

// Batch is one iteration's data, plain slices so that any engine can take
// it: Init holds Setup.Batch initial states [B, H, W, C] (values 0 or 1 for
// the hard loss to make sense), Target the wanted final values of the loss
// channels [B, H, W, len(LossChannels)]. FireSeed seeds the fire masks of an
// asynchronous rollout (dlca.NewFireMasks).
type Batch struct {
	Height, Width int
	Init          []float32
	Target        []float32
	FireSeed      uint64
}

// Optimizer holds the optimiser's hyper-parameters: every gradient element
// is clipped to [-Clip, Clip], then AdamW(LR, Beta1, Beta2, Eps,
// WeightDecay) steps.
type Optimizer struct {
	LR, Beta1, Beta2, Eps, WeightDecay, Clip float64
}

// PaperOptimizer returns the paper's optimiser for learning rate lr: clip
// 100, AdamW with betas (0.9, 0.99), eps 1e-8, weight decay 0.01.
func PaperOptimizer(lr float64) Optimizer {
	return Optimizer{LR: lr, Beta1: 0.9, Beta2: 0.99, Eps: 1e-8, WeightDecay: 0.01, Clip: 100}
}

// Setup is what an engine is built from: the model to train (the engine
// trains its own copy) and the fixed shape of every iteration.
type Setup struct {
	Model        *dlca.Model
	Batch        int   // initial states per iteration
	Steps        int   // T, the steps rolled out (and backpropagated through)
	LossChannels []int // channels compared with the target at the final step
	Async        bool  // asynchronous steps (fire rate from the model's config)
	Optimizer    Optimizer
	// Recompute, if positive, sets gradient checkpointing over time on
	// the CPU engine: keep the state every Recompute steps and recompute
	// the activations of one segment at a time in the backward pass (same
	// gradients, memory of Recompute steps instead of Steps; see
	// EstimateMemory and SuggestRecompute). At 0 the engine chooses
	// (Segment): one step at a time where that is faster.
	Recompute int
	// Workers is the number of goroutines each step of the CPU engine
	// runs on. At 0 the engine times its first iterations (after one)
	// alternately on one goroutine and on GOMAXPROCS and keeps the faster:
	// on some machines the second core only adds contention. The results
	// are the same bit for bit whatever it is.
	Workers int
}

// Validate reports what is wrong with the setup.
func (s Setup) Validate() error {
	switch {
	case s.Model == nil:
		return fmt.Errorf("bptt: setup has no model")
	case s.Batch < 1:
		return fmt.Errorf("bptt: batch is %d: need at least 1 initial state per iteration", s.Batch)
	case s.Steps < 1:
		return fmt.Errorf("bptt: steps is %d: need at least 1 step to learn from", s.Steps)
	case len(s.LossChannels) == 0:
		return fmt.Errorf("bptt: no loss channels: name the channels the target describes")
	case !(s.Optimizer.LR > 0):
		return fmt.Errorf("bptt: learning rate %v: must be positive (the paper uses 0.05)", s.Optimizer.LR)
	case s.Recompute < 0:
		return fmt.Errorf("bptt: recompute every %d steps: must not be negative (0 lets the engine choose)", s.Recompute)
	case s.Workers < 0:
		return fmt.Errorf("bptt: %d workers: must not be negative (0 lets the engine choose)", s.Workers)
	case s.Optimizer.Clip <= 0:
		return fmt.Errorf("bptt: gradient clip %v: must be positive (the paper uses 100)", s.Optimizer.Clip)
	}
	for i, c := range s.LossChannels {
		if c < 0 || c >= s.Model.Config.Channels {
			return fmt.Errorf("bptt: loss channel %d out of range for %d channels", c, s.Model.Config.Channels)
		}
		if slices.Contains(s.LossChannels[:i], c) {
			return fmt.Errorf("bptt: loss channels %v name channel %d twice", s.LossChannels, c)
		}
	}
	return nil
}

// check panics, naming the engine, if b does not fit the setup.
func (s Setup) check(engine string, b *Batch) {
	c := s.Model.Config.Channels
	cells := s.Batch * b.Height * b.Width
	if b.Height < 1 || b.Width < 1 || len(b.Init) != cells*c || len(b.Target) != cells*len(s.LossChannels) {
		panic(fmt.Sprintf("bptt: %s: batch %dx%d with %d init and %d target values, want %d and %d", engine, b.Height, b.Width, len(b.Init), len(b.Target), cells*c, cells*len(s.LossChannels)))
	}
}

// Engine runs training iterations. The CPU engine (NewCPU) is here; the GPU
// engine in package gpu implements the same interface.
type Engine interface {
	// Iterate runs one training iteration on b: roll the soft automaton
	// out for Setup.Steps steps keeping the activations, take the loss (the
	// sum of squared errors on the loss channels at the final step),
	// backpropagate through every step, clip, and step the optimiser. It
	// returns the loss before the update.
	Iterate(b *Batch) (softLoss float64, err error)
	// Model returns a copy of the model as trained so far.
	Model() (*dlca.Model, error)
	// Close releases the engine's resources.
	Close() error
}
