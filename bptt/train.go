package bptt

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/dlca"
)

// Metrics describe one training iteration.
type Metrics struct {
	Iteration   int           `json:"iteration" jsonfile:"required"`    // 1-based
	SoftLoss    float64       `json:"soft_loss" jsonfile:"required"`    // the loss that was backpropagated
	HardLoss    float64       `json:"hard_loss" jsonfile:"required"`    // the same batch through the argmax circuit on bits
	ActiveGates int           `json:"active_gates" jsonfile:"required"` // dlca.Model.ActiveGates
	Time        time.Duration `json:"time_ns" jsonfile:"required"`      // wall time of the iteration, hard loss included
	// Layers, at the iterations Run.LayerStats asks for and nowhere else,
	// describes every layer (Model.Layers order).
	Layers []LayerStats `json:"layers,omitempty"`
}

// Event is what observers receive after each iteration. Model is the model
// the iteration started from (the one SoftLoss and HardLoss measure); it is
// the observer's to keep.
type Event struct {
	Metrics
	Iterations int           // total planned
	Elapsed    time.Duration // since training started
	Start      int           // iterations done before Elapsed began (Run.Start)
	Model      *dlca.Model
	Batch      *Batch
}

// Observer receives every iteration's event, synchronously, on the training
// goroutine: it should return quickly (hand the work to another goroutine if
// it draws).
type Observer func(Event)

// Source makes a fresh batch for each iteration from the run's random
// numbers.
type Source func(rng *rand.Rand) *Batch

// Run says how long to train and on what.
type Run struct {
	Iterations int
	// Seed seeds the batches and fire masks: rand.NewPCG(Seed, 1).
	Seed      uint64
	Source    Source
	Observers []Observer
	// Stop, if not nil, ends training early when it returns true for an
	// iteration's metrics (after the observers saw them).
	Stop func(Metrics) bool
	// Start is the number of iterations already done (a run resumed from a
	// checkpoint): training goes on from iteration Start+1.
	Start int
	// RNG, if not nil, replaces rand.NewPCG(Seed, 1) as the source of the
	// batches and fire masks: a resumed run passes the checkpoint's, and a
	// Checkpointer saves it.
	RNG *rand.PCG
	// Draw, if not nil, replaces Source and the PCG stream: it returns
	// iteration it's batch (it counts from 1), FireSeed included. It must be
	// a function of it alone (the JAX stream of package experiments is), so
	// that a resumed run draws what the uninterrupted run would have.
	Draw func(it int) *Batch
	// LayerStats, if positive, records Metrics.Layers at iteration 1 and
	// every LayerStats-th iteration; the engine must be a GradientEngine.
	// The statistics change nothing in the training.
	LayerStats int
	// StraightThroughFrom, if positive, trains iteration StraightThroughFrom
	// and every later one straight-through: the rollout steps with the
	// circuit's gates (each its argmax op) and the backward pass takes the
	// soft model's gradient at those activations
	// (dlca.RolloutOptions.StraightThrough), so the loss minimised is the
	// hard loss; an iteration whose loss is 0 (the circuit right on its
	// batch) leaves the model as it is. Not the paper's method: an option
	// against the relaxation gap, off (0) by default. The engine must be a
	// StraightThroughEngine.
	StraightThroughFrom int
	// StatePenalty, if positive, adds StatePenalty times the sum of x(1-x)
	// over every value x of the states between the first step and the last
	// (steps 1 to T-1) to the loss that iteration StatePenaltyFrom and every
	// later one minimise; the penalty is 0 only on bits, so it pushes the
	// soft rollout to pass bits from step to step as the circuit does. The
	// soft loss reported stays the paper's (the final state against the
	// target). Not the paper's method: an option against the relaxation
	// gap, off (0) by default. The engine must be a StatePenaltyEngine.
	StatePenalty     float64
	StatePenaltyFrom int
}

// StatePenaltyEngine is an engine that can add the state penalty of
// Run.StatePenalty to its loss: SetStatePenalty(w) makes the following
// iterations add w times it, 0 none.
type StatePenaltyEngine interface {
	Engine
	SetStatePenalty(weight float64)
}

// StraightThroughEngine is an engine that can train straight-through
// (Run.StraightThroughFrom): SetStraightThrough(true) makes the following
// iterations do so, false returns to the soft rollout.
type StraightThroughEngine interface {
	Engine
	SetStraightThrough(on bool)
}

// measuresLayers reports whether Train records Metrics.Layers at iteration
// it.
func (r Run) measuresLayers(it int) bool {
	return r.LayerStats > 0 && (it == 1 || it%r.LayerStats == 0)
}

// Train runs run.Iterations iterations of eng and returns every iteration's
// metrics and the trained model. It stops early, returning what it has and
// ctx's error, when ctx is done.
func Train(ctx context.Context, eng Engine, setup Setup, run Run) ([]Metrics, *dlca.Model, error) {
	if err := setup.Validate(); err != nil {
		return nil, nil, err
	}
	if run.Iterations < 0 {
		return nil, nil, fmt.Errorf("bptt: %d iterations: must not be negative", run.Iterations)
	}
	if run.Start < 0 || run.Start > run.Iterations {
		return nil, nil, fmt.Errorf("bptt: starting after iteration %d of %d: out of range", run.Start, run.Iterations)
	}
	if run.Source == nil && run.Draw == nil {
		return nil, nil, fmt.Errorf("bptt: run has no batch source")
	}
	if run.LayerStats < 0 {
		return nil, nil, fmt.Errorf("bptt: layer statistics every %d iterations: must not be negative (0 records none)", run.LayerStats)
	}
	grad, canMeasure := eng.(GradientEngine)
	if run.LayerStats > 0 && !canMeasure {
		return nil, nil, fmt.Errorf("bptt: this engine does not hand out its gradients, which layer statistics need: train on the CPU engine")
	}
	if run.StraightThroughFrom < 0 {
		return nil, nil, fmt.Errorf("bptt: straight-through from iteration %d: must not be negative (0 trains soft throughout)", run.StraightThroughFrom)
	}
	straight, canStraight := eng.(StraightThroughEngine)
	if run.StraightThroughFrom > 0 && !canStraight {
		return nil, nil, fmt.Errorf("bptt: this engine cannot train straight-through: train on the CPU engine")
	}
	if !(run.StatePenalty >= 0) || math.IsInf(run.StatePenalty, 0) || run.StatePenaltyFrom < 0 {
		return nil, nil, fmt.Errorf("bptt: state penalty %v from iteration %d: the weight must be finite and not negative (0 trains as the paper does), the iteration not negative", run.StatePenalty, run.StatePenaltyFrom)
	}
	penalise, canPenalise := eng.(StatePenaltyEngine)
	if run.StatePenalty > 0 && !canPenalise {
		return nil, nil, fmt.Errorf("bptt: this engine cannot add the state penalty: train on the CPU engine")
	}
	src := run.RNG
	if src == nil {
		src = rand.NewPCG(run.Seed, 1)
	}
	rng := rand.New(src)
	start := time.Now()
	var all []Metrics
	for it := run.Start + 1; it <= run.Iterations; it++ {
		if err := ctx.Err(); err != nil {
			m, _ := eng.Model()
			return all, m, err
		}
		t0 := time.Now()
		var b *Batch
		if run.Draw != nil {
			b = run.Draw(it)
		} else {
			b = run.Source(rng)
			b.FireSeed = rng.Uint64()
		}
		before, err := eng.Model()
		if err != nil { // a GPU engine whose device was lost, say
			return all, nil, fmt.Errorf("bptt: iteration %d: %w", it, err)
		}
		if err := CheckLogits(before); err != nil { // guard.go
			return all, nil, fmt.Errorf("bptt: iteration %d: %w", it, err)
		}
		if canStraight {
			straight.SetStraightThrough(run.StraightThroughFrom > 0 && it >= run.StraightThroughFrom)
		}
		if canPenalise {
			w := 0.0
			if it >= run.StatePenaltyFrom {
				w = run.StatePenalty
			}
			penalise.SetStatePenalty(w)
		}
		var soft float64
		var grads []*autograd.Tensor
		if run.measuresLayers(it) {
			soft, grads, err = grad.IterateGradients(b)
		} else {
			soft, err = eng.Iterate(b)
		}
		if err == nil {
			err = CheckLoss(soft)
		}
		if err != nil {
			return all, before, fmt.Errorf("bptt: iteration %d: %w", it, err)
		}
		met := Metrics{
			Iteration:   it,
			SoftLoss:    soft,
			HardLoss:    HardLoss(before.Circuit(), setup, b),
			ActiveGates: before.ActiveGates(),
		}
		if grads != nil {
			if met.Layers, err = measureLayers(before, grads); err != nil {
				return all, before, fmt.Errorf("bptt: iteration %d: %w", it, err)
			}
		}
		met.Time = time.Since(t0)
		all = append(all, met)
		for _, o := range run.Observers {
			o(Event{Metrics: met, Iterations: run.Iterations, Elapsed: time.Since(start), Start: run.Start, Model: before, Batch: b})
		}
		if run.Stop != nil && run.Stop(met) {
			break
		}
	}
	m, err := eng.Model()
	return all, m, err
}

// HardLoss rolls the batch's initial states (thresholded at 0.5) through the
// circuit for setup.Steps steps and counts the loss channels' bits that
// differ from the target: the soft loss's sum of squared errors on bits.
func HardLoss(c *dlca.Circuit, setup Setup, b *Batch) float64 {
	ch := setup.Model.Config.Channels
	init := autograd.New(b.Init, setup.Batch, b.Height, b.Width, ch)
	final := c.Rollout(dlca.BitsOf(init), setup.Steps, dlca.HardOptions{Async: setup.Async, Seed: b.FireSeed})
	wrong := 0
	nl := len(setup.LossChannels)
	for i := range final.Cells() {
		for j, k := range setup.LossChannels {
			got := final.Cell(i, k)
			want := uint8(0)
			if b.Target[i*nl+j] > 0.5 {
				want = 1
			}
			if got != want {
				wrong++
			}
		}
	}
	return float64(wrong)
}
