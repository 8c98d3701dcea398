package experiments

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/gates"
)

func TestLizardSettings(t *testing.T) {
	e, err := Get("lizard")
	if err != nil {
		t.Fatal(err)
	}
	// PAPER.md section 3: 640 update inputs, [512]x8, 256, 128; 12 steps; lr 0.06.
	if e.Model.UpdateInputs() != 640 || len(e.Model.UpdateLayers) != 10 || e.Steps != 12 || e.Optimizer.LR != 0.06 || e.Iterations != 3500 || e.Model.Boundary != circuit.Periodic {
		t.Fatalf("settings differ from the paper: %+v", e)
	}
	s := CentreSeed(nil, 5, 4, 2)
	for i, v := range s {
		want := float32(0)
		if i/2 == 2*4+2 {
			want = 1
		}
		if v != want {
			t.Fatalf("seed value %d = %v, want %v (only cell (2,2) alive)", i, v, want)
		}
	}
}

// TestGrowCheck: a rule that writes 0 everywhere clears the seed, so on
// 40x40 every cell of the lizard is wrong.
func TestGrowCheck(t *testing.T) {
	e, _ := Get("lizard")
	e.Model.Channels, e.Model.UpdateLayers = 2, []int{8, 4, 2}
	m := constantModel(t, e, gates.False)
	area := 0
	for _, v := range Lizard(LizardSize, LizardSize) {
		area += int(v)
	}
	r := e.Checks[0].Run(e, m)
	if r.Passed || r.Wrong != area || len(r.Frames) != 13 || r.Frames[0].Height != 40 {
		t.Fatalf("all-zero rule: %s (want %d wrong), %d frames", r.Detail, area, len(r.Frames))
	}
	if !strings.HasSuffix(r.Detail, ", 0 of them outside the centred 20x20 training square") {
		t.Errorf("all-zero rule: the lizard lies inside the training square, yet: %s", r.Detail)
	}
	// A rule that writes 1 everywhere is wrong on every cell but the
	// lizard's, 40*40 - 20*20 of them outside the training square.
	r = e.Checks[0].Run(e, constantModel(t, e, gates.True))
	if want := fmt.Sprintf("%d wrong cells, %d of them outside", 40*40-area, 40*40-20*20); r.Passed || !strings.Contains(r.Detail, want) {
		t.Errorf("all-one rule: %s (want %q)", r.Detail, want)
	}
}

// trainSmall trains e, scaled down to channels channels, 2 kernels and a
// 3-layer update network, for iterations iterations, and returns the soft
// losses. The grid, steps, target and initial state are e's own.
func trainSmall(t *testing.T, e *Experiment, channels, iterations int) []float64 {
	t.Helper()
	e.Model.Channels, e.Model.Kernels = channels, 2
	e.Model.UpdateLayers = []int{4 * channels, 2 * channels, channels}
	e.Iterations = iterations
	m, err := dlca.New(e.Model, autograd.Float32)
	if err != nil {
		t.Fatal(err)
	}
	setup := e.Setup(m)
	eng, err := bptt.NewCPU(setup)
	if err != nil {
		t.Fatal(err)
	}
	metrics, _, err := bptt.Train(context.Background(), eng, setup, e.Run())
	if err != nil {
		t.Fatal(err)
	}
	var losses []float64
	for _, m := range metrics {
		losses = append(losses, m.SoftLoss)
	}
	return losses
}

// TestLizardTrainingLowersTheLoss: the initial state and target are fixed,
// so the loss is a deterministic function of the logits, and a few
// iterations must lower it.
func TestLizardTrainingLowersTheLoss(t *testing.T) {
	e, _ := Get("lizard")
	losses := trainSmall(t, e, 8, 100)
	first, last := losses[0], losses[len(losses)-1]
	t.Logf("soft loss %v -> %v", first, last)
	if !(last < 0.9*first) {
		t.Fatalf("soft loss %v -> %v in %d iterations: want a drop of at least 10%%", first, last, len(losses))
	}
}
