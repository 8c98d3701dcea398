package bptt_test

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/gates"
)

// TestLayerStats trains checkerboard-small (from random logits) with
// Run.LayerStats 3 and holds
// every recorded layer to values computed here without the engine: the
// gradient norm from the composed reference rollout's backward pass on the
// iteration's model and batch, the undecided gates from a softmax of the
// logits. The statistics are recorded at iterations 1, 3 and 6 only, and
// the training is bit for bit that of a run without them.
func TestLayerStats(t *testing.T) {
	e, m := experimentModel(t, "checkerboard-small")
	// Random logits, so that some gates are undecided and some not.
	randomizeLogits(m, 4, 3)
	setup := e.Setup(m)
	const iterations = 7
	var recorded []int
	measured := func(ev bptt.Event) {
		if ev.Layers == nil {
			return
		}
		recorded = append(recorded, ev.Iteration)
		want := referenceGradNorms(t, setup, ev.Model, ev.Batch)
		layers := ev.Model.Layers()
		if len(ev.Layers) != len(layers) {
			t.Fatalf("iteration %d: %d layer statistics for %d layers", ev.Iteration, len(ev.Layers), len(layers))
		}
		for i, s := range ev.Layers {
			l := layers[i]
			if s.Layer != l.Name || s.Gates != l.Groups*l.Out {
				t.Errorf("iteration %d: statistics of %s with %d gates, want %s with %d", ev.Iteration, s.Layer, s.Gates, l.Name, l.Groups*l.Out)
			}
			if math.Abs(s.GradNorm-want[i]) > 1e-4*want[i]+1e-9 {
				t.Errorf("iteration %d, %s: gradient norm %g, reference %g", ev.Iteration, l.Name, s.GradNorm, want[i])
			}
			if u := undecided(l.Logits); s.Undecided != u {
				t.Errorf("iteration %d, %s: %d undecided gates, softmax says %d", ev.Iteration, l.Name, s.Undecided, u)
			}
		}
	}
	train := func(every int, obs ...bptt.Observer) ([]bptt.Metrics, *dlca.Model) {
		eng, err := bptt.NewCPU(setup)
		if err != nil {
			t.Fatal(err)
		}
		run := e.Run(obs...)
		run.Iterations, run.LayerStats = iterations, every
		metrics, trained, err := bptt.Train(context.Background(), eng, setup, run)
		if err != nil {
			t.Fatal(err)
		}
		return metrics, trained
	}
	withStats, model := train(3, measured)
	if want := []int{1, 3, 6}; !slices.Equal(recorded, want) {
		t.Fatalf("layer statistics at iterations %v, want %v", recorded, want)
	}
	if s := withStats[0].Layers[0]; s.GradNorm == 0 || s.Undecided == 0 || s.Undecided == s.Gates {
		t.Fatalf("iteration 1, %s: gradient norm %v, %d of %d gates undecided: the test measures nothing", s.Layer, s.GradNorm, s.Undecided, s.Gates)
	}
	plain, plainModel := train(0)
	for i := range plain {
		if plain[i].Layers != nil {
			t.Fatalf("iteration %d: layer statistics without Run.LayerStats", plain[i].Iteration)
		}
		if plain[i].SoftLoss != withStats[i].SoftLoss || plain[i].HardLoss != withStats[i].HardLoss {
			t.Fatalf("iteration %d: losses %v/%v with statistics, %v/%v without", i+1, withStats[i].SoftLoss, withStats[i].HardLoss, plain[i].SoftLoss, plain[i].HardLoss)
		}
	}
	for i, p := range model.Params() {
		if !slices.Equal(p.Data32(), plainModel.Params()[i].Data32()) {
			t.Fatalf("layer %d: the statistics changed the trained logits", i)
		}
	}
}

// referenceGradNorms is the L2 norm of each layer's logit gradient of the
// paper's loss on b, through the composed reference rollout of a copy of m.
func referenceGradNorms(t *testing.T, setup bptt.Setup, m *dlca.Model, b *bptt.Batch) []float64 {
	t.Helper()
	var norms []float64
	for _, g := range referenceGrads(t, setup, m, b) {
		var sq float64
		for _, v := range g {
			sq += v * v
		}
		norms = append(norms, math.Sqrt(sq))
	}
	return norms
}

// referenceGrads is each layer's logit gradient of the paper's loss on b,
// through the composed reference rollout of a copy of m.
func referenceGrads(t *testing.T, setup bptt.Setup, m *dlca.Model, b *bptt.Batch) [][]float64 {
	t.Helper()
	m = m.Clone()
	c := m.Config.Channels
	init := autograd.New(slices.Clone(b.Init), setup.Batch, b.Height, b.Width, c)
	target := autograd.New(slices.Clone(b.Target), setup.Batch, b.Height, b.Width, len(setup.LossChannels))
	loss := bptt.Loss(m.ReferenceRollout(init, setup.Steps), target, setup.LossChannels)
	if err := loss.Backward(); err != nil {
		t.Fatal(err)
	}
	var grads [][]float64
	for _, p := range m.Params() {
		grads = append(grads, p.Grad().Float64s())
	}
	return grads
}

// TestLayerStatsNoGradient: on a fresh model (every gate on pass-through)
// the loss reaches only the gates on the paths back from the loss channel;
// LayerStats.NoGradient counts the others, the gates whose reference
// gradient is 0 for every op (to the reference's rounding, which leaves
// about 1e-12 where the fused kernels' sums cancel exactly).
func TestLayerStatsNoGradient(t *testing.T) {
	e, m := experimentModel(t, "checkerboard-small")
	setup := e.Setup(m)
	eng, err := bptt.NewCPU(setup)
	if err != nil {
		t.Fatal(err)
	}
	run := e.Run(func(ev bptt.Event) {
		grads := referenceGrads(t, setup, ev.Model, ev.Batch)
		reached := 0
		for i, s := range ev.Layers {
			want := 0
			for g := 0; g < len(grads[i]); g += gates.NumOps {
				if max(slices.Max(grads[i][g:g+gates.NumOps]), -slices.Min(grads[i][g:g+gates.NumOps])) <= 1e-9 {
					want++
				}
			}
			if s.NoGradient != want {
				t.Errorf("%s: %d gates without gradient, the reference has %d", s.Layer, s.NoGradient, want)
			}
			reached += s.Gates - s.NoGradient
		}
		if reached == 0 {
			t.Error("the loss reaches no gate: nothing to count")
		}
	})
	run.Iterations, run.LayerStats = 1, 1
	if _, _, err := bptt.Train(context.Background(), eng, setup, run); err != nil {
		t.Fatal(err)
	}
}

// undecided counts the gates whose largest softmax probability is below
// bptt.UndecidedBelow.
func undecided(logits *autograd.Tensor) int {
	v := logits.Float64s()
	n := 0
	for g := 0; g < len(v); g += gates.NumOps {
		top := slices.Max(v[g : g+gates.NumOps])
		sum := 0.0
		for _, x := range v[g : g+gates.NumOps] {
			sum += math.Exp(x - top)
		}
		if 1/sum < bptt.UndecidedBelow {
			n++
		}
	}
	return n
}

// gradientless is an engine that does not hand out its gradients.
type gradientless struct{ bptt.Engine }

// TestLayerStatsNeedGradients: an engine without IterateGradients is
// refused before the first iteration, and so is a negative interval.
func TestLayerStatsNeedGradients(t *testing.T) {
	e, m := experimentModel(t, "checkerboard-small")
	setup := e.Setup(m)
	eng, err := bptt.NewCPU(setup)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		eng   bptt.Engine
		every int
		want  string
	}{
		{gradientless{eng}, 5, "train on the CPU engine"},
		{eng, -1, "must not be negative"},
	} {
		run := e.Run()
		run.Iterations, run.LayerStats = 2, c.every
		metrics, _, err := bptt.Train(context.Background(), c.eng, setup, run)
		if err == nil || !strings.Contains(err.Error(), c.want) || len(metrics) != 0 {
			t.Errorf("LayerStats %d: %d iterations, error %v; want none and an error saying %q", c.every, len(metrics), err, c.want)
		}
	}
}
