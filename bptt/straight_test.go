package bptt_test

import (
	"context"
	"strings"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/dlca"
)

// TestStraightThroughFrom trains checkerboard-small from random logits
// (soft and hard loss far apart) with Run.StraightThroughFrom 4: iterations
// 1 to 3 are those of the paper's method bit for bit, and from iteration 4
// the loss backpropagated is the hard loss exactly (the rollout is the
// circuit's, from bits), which it is not before. Gradient checkpointing
// trains the same model. An engine that cannot train straight-through is
// refused.
func TestStraightThroughFrom(t *testing.T) {
	e, m := experimentModel(t, "checkerboard-small")
	randomizeLogits(m, 5, 3)
	const iterations, from = 7, 4
	train := func(from, recompute int) ([]bptt.Metrics, *dlca.Model) {
		setup := e.Setup(m)
		setup.Recompute = recompute
		eng, err := bptt.NewCPU(setup)
		if err != nil {
			t.Fatal(err)
		}
		run := e.Run()
		run.Iterations, run.StraightThroughFrom = iterations, from
		metrics, trained, err := bptt.Train(context.Background(), eng, setup, run)
		if err != nil {
			t.Fatal(err)
		}
		return metrics, trained
	}
	straight, model := train(from, 0)
	soft, softModel := train(0, 0)
	for i, met := range straight {
		it := i + 1
		if it < from {
			if met.SoftLoss != soft[i].SoftLoss || met.HardLoss != soft[i].HardLoss {
				t.Fatalf("iteration %d, before the straight-through phase: losses %v/%v, the paper's method's %v/%v", it, met.SoftLoss, met.HardLoss, soft[i].SoftLoss, soft[i].HardLoss)
			}
			if met.SoftLoss == met.HardLoss {
				t.Fatalf("iteration %d: soft loss %v equals the hard loss: the test cannot tell the phases apart", it, met.SoftLoss)
			}
			continue
		}
		if met.SoftLoss != met.HardLoss {
			t.Fatalf("iteration %d, straight-through: loss %v, hard loss %v: want the hard loss", it, met.SoftLoss, met.HardLoss)
		}
	}
	if sameParams(model, softModel) {
		t.Fatal("the straight-through phase trained the paper's model")
	}
	if _, recomputed := train(from, 2); !sameParams(model, recomputed) {
		t.Fatal("with gradient checkpointing (Recompute 2) the straight-through run trains another model")
	}

	setup := e.Setup(m)
	eng, err := bptt.NewCPU(setup)
	if err != nil {
		t.Fatal(err)
	}
	run := e.Run()
	run.Iterations, run.StraightThroughFrom = iterations, from
	if _, _, err := bptt.Train(context.Background(), struct{ bptt.Engine }{eng}, setup, run); err == nil || !strings.Contains(err.Error(), "cannot train straight-through") {
		t.Fatalf("an engine without straight-through: error %v", err)
	}
}

// sameParams reports whether a and b have the same logits, bit for bit.
func sameParams(a, b *dlca.Model) bool {
	for i, p := range a.Params() {
		for j := range p.Len() {
			if p.At(j) != b.Params()[i].At(j) {
				return false
			}
		}
	}
	return true
}

// A straight-through iteration on a batch the circuit gets right (its
// target is the circuit's own rollout) has loss 0 and leaves the model as
// it is; the paper's method moves it (AdamW's weight decay at least).
func TestStraightThroughKeepsARightCircuit(t *testing.T) {
	setup := tinySetup(t)
	b := tinyBatch(3)
	init := autograd.New(b.Init, 2, 4, 4, 2)
	final := setup.Model.Circuit().Rollout(dlca.BitsOf(init), setup.Steps, dlca.HardOptions{})
	for i := range final.Cells() {
		for j, k := range setup.LossChannels {
			b.Target[i*len(setup.LossChannels)+j] = float32(final.Cell(i, k))
		}
	}
	for _, straight := range []bool{true, false} {
		eng, err := bptt.NewCPU(setup)
		if err != nil {
			t.Fatal(err)
		}
		eng.SetStraightThrough(straight)
		loss, err := eng.Iterate(b)
		if err != nil {
			t.Fatal(err)
		}
		m, _ := eng.Model()
		switch kept := sameParams(m, setup.Model); {
		case straight && (loss != 0 || !kept):
			t.Fatalf("straight-through on a right circuit: loss %v, model kept %v", loss, kept)
		case !straight && (loss == 0 || kept):
			t.Fatalf("the paper's method on the same batch: loss %v, model kept %v", loss, kept)
		}
	}
}
