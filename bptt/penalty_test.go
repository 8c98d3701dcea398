package bptt_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/dlca"
)

// referencePenalised is the state-penalty loss written independently of the
// engine: the reference rollout (composed autograd ops) one step at a time,
// the paper's loss at the end, plus weight times the sum of x(1-x) over the
// states after steps 1 to T-1, computed here value by value.
func referencePenalised(m *dlca.Model, b *bptt.Batch, steps int, weight float64) *autograd.Tensor {
	init := autograd.Zeros(autograd.Float64, 2, 4, 4, 2)
	target := autograd.Zeros(autograd.Float64, 2, 4, 4, 2)
	for i := range b.Init {
		init.SetAt(i, float64(b.Init[i]))
		target.SetAt(i, float64(b.Target[i]))
	}
	state := init
	loss := autograd.Scalar64(0)
	for t := 1; t <= steps; t++ {
		state = m.ReferenceRollout(state, 1)
		if t < steps {
			one := autograd.Full(autograd.Float64, 1, state.Shape()...)
			loss = autograd.Add(loss, autograd.MulScalar(autograd.Sum(autograd.Mul(state, autograd.Sub(one, state)), false), weight))
		}
	}
	return autograd.Add(loss, bptt.Loss(state, target, []int{0, 1}))
}

// TestStatePenaltyGradient: with SetStatePenalty(w) the CPU engine reports
// the paper's loss but differentiates the paper's loss plus w times the
// intermediate states' sum of x(1-x): its gradients equal the independent
// reference's and central finite differences of it (float64), and differ
// from the paper's gradients.
func TestStatePenaltyGradient(t *testing.T) {
	setup := tinySetup(t)
	const weight = 0.3
	b := tinyBatch(4)
	gradients := func(w float64) (float64, []*autograd.Tensor) {
		eng, err := bptt.NewCPU(setup)
		if err != nil {
			t.Fatal(err)
		}
		eng.SetStatePenalty(w)
		loss, grads, err := eng.IterateGradients(b)
		if err != nil {
			t.Fatal(err)
		}
		return loss, grads
	}
	paperLoss, paperGrads := gradients(0)
	loss, grads := gradients(weight)
	if loss != paperLoss {
		t.Fatalf("reported loss %v with the penalty, %v without: want the paper's loss reported", loss, paperLoss)
	}

	ref := setup.Model.Clone()
	for _, p := range ref.Params() {
		p.SetRequiresGrad(true)
	}
	refLoss := referencePenalised(ref, b, setup.Steps, weight)
	if refLoss.Item()-paperLoss < 1e-3 {
		t.Fatalf("reference penalised loss %v, paper's %v: the penalty is too small to test", refLoss.Item(), paperLoss)
	}
	if err := refLoss.Backward(); err != nil {
		t.Fatal(err)
	}
	differs := false
	for i, p := range ref.Params() {
		for j := range p.Len() {
			got, want := grads[i].At(j), p.Grad().At(j)
			if math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
				t.Fatalf("layer %d logit %d: gradient %v, reference %v", i, j, got, want)
			}
			if math.Abs(got-paperGrads[i].At(j)) > 1e-6 {
				differs = true
			}
		}
	}
	if !differs {
		t.Fatal("the penalised gradients equal the paper's")
	}

	// Central differences of the reference loss on a few logits of every layer.
	const h = 1e-6
	for i, p := range setup.Model.Params() {
		for _, j := range []int{0, 17, p.Len() - 1} {
			at := func(d float64) float64 {
				m := setup.Model.Clone()
				q := m.Params()[i]
				q.SetAt(j, q.At(j)+d)
				return referencePenalised(m, b, setup.Steps, weight).Item()
			}
			fd := (at(h) - at(-h)) / (2 * h)
			if got := grads[i].At(j); math.Abs(got-fd) > 1e-5*(1+math.Abs(fd)) {
				t.Fatalf("layer %d logit %d: gradient %v, finite difference %v", i, j, got, fd)
			}
		}
	}
}

// TestStatePenaltyFrom trains checkerboard-small with Run.StatePenalty from
// iteration 4: iterations 1 to 3 are the paper's method's bit for bit, the
// model trained is another; engines without the penalty and bad settings
// are refused.
func TestStatePenaltyFrom(t *testing.T) {
	e, m := experimentModel(t, "checkerboard-small")
	randomizeLogits(m, 5, 3)
	const iterations, from = 6, 4
	train := func(engine bptt.Engine, weight float64, from int) ([]bptt.Metrics, *dlca.Model, error) {
		setup := e.Setup(m)
		if engine == nil {
			eng, err := bptt.NewCPU(setup)
			if err != nil {
				t.Fatal(err)
			}
			engine = eng
		}
		run := e.Run()
		run.Iterations, run.StatePenalty, run.StatePenaltyFrom = iterations, weight, from
		return bptt.Train(context.Background(), engine, setup, run)
	}
	penalised, model, err := train(nil, 0.05, from)
	if err != nil {
		t.Fatal(err)
	}
	paper, paperModel, err := train(nil, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range from - 1 {
		if penalised[i].SoftLoss != paper[i].SoftLoss || penalised[i].HardLoss != paper[i].HardLoss {
			t.Fatalf("iteration %d, before the penalty: losses %v/%v, the paper's method's %v/%v", i+1, penalised[i].SoftLoss, penalised[i].HardLoss, paper[i].SoftLoss, paper[i].HardLoss)
		}
	}
	if penalised[from].SoftLoss == paper[from].SoftLoss {
		t.Fatalf("iteration %d, after a penalised step: the same soft loss as the paper's method", from+1)
	}
	if sameParams(model, paperModel) {
		t.Fatal("the penalised run trained the paper's model")
	}

	eng, err := bptt.NewCPU(e.Setup(m))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		engine bptt.Engine
		weight float64
		from   int
		want   string
	}{
		{struct{ bptt.Engine }{eng}, 0.05, 1, "cannot add the state penalty"},
		{nil, -1, 1, "must be finite and not negative"},
		{nil, math.Inf(1), 1, "must be finite and not negative"},
		{nil, 0.05, -2, "must be finite and not negative"},
	} {
		if _, _, err := train(tc.engine, tc.weight, tc.from); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("weight %v from %d: error %v, want %q", tc.weight, tc.from, err, tc.want)
		}
	}
}
