package bptt_test

import (
	"context"
	"slices"
	"strings"
	"testing"

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

func sameParams(a, b *dlca.Model) bool {
	for i, p := range a.Params() {
		if !slices.Equal(p.Data32(), b.Params()[i].Data32()) {
			return false
		}
	}
	return true
}
