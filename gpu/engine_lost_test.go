package gpu_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/gpu"
)

// The device lost under the GPU engine (an injected readback failure,
// gpu.LoseDevice): errors that say so, never a crash, a loss value or stale
// logits (issue #13).

// lostMessage fails t unless err is a lost device's error naming what.
func lostMessage(t *testing.T, call string, err error, what string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s on a lost device: no error", call)
	}
	if !errors.Is(err, autograd.ErrDeviceLost) {
		t.Errorf("%s on a lost device: %q does not wrap autograd.ErrDeviceLost", call, err)
	}
	for _, want := range []string{what, "the device may have been lost"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s on a lost device: %q does not say %q", call, err, want)
		}
	}
}

// TestEngineLostDevice: once a readback has failed, Iterate returns its
// error and no loss, and so do every later Iterate (which runs nothing),
// Model, LogitGrads and OptimizerState. Only the first readback fails (as a real loss never
// would), so the later errors can only be the one the engine kept.
func TestEngineLostDevice(t *testing.T) {
	setup, run := xorTask(t)
	e := newEngine(t, setup)
	rng := rand.New(rand.NewPCG(run.Seed, 1))
	if _, err := e.Iterate(run.Source(rng)); err != nil {
		t.Fatal(err)
	}
	gpu.LoseDevice(t, 1)
	loss, lost := e.Iterate(run.Source(rng))
	lostMessage(t, "Iterate", lost, `"loss value"`)
	if loss != 0 {
		t.Errorf("Iterate on a lost device returned the loss %v", loss)
	}
	state, err := gpu.FinalState(e) // the failed Iterate's (the fault has passed)
	if err != nil {
		t.Fatal(err)
	}
	if loss, err := e.Iterate(run.Source(rng)); err != lost || loss != 0 {
		t.Errorf("the next Iterate: loss %v, error %v; want the lost device's error", loss, err)
	}
	if again, err := gpu.FinalState(e); err != nil || !slices.Equal(again, state) {
		t.Errorf("the next Iterate ran its rollout (final state read back: %v), want it skipped", err)
	}
	if m, err := e.Model(); err != lost || m != nil {
		t.Errorf("Model after the loss: %v, error %v; want no model and the lost device's error", m, err)
	}
	if g, err := e.LogitGrads(); err != lost || g != nil {
		t.Errorf("LogitGrads after the loss: %d layers, error %v; want none and the lost device's error", len(g), err)
	}
	if _, err := e.OptimizerState(); err != lost {
		t.Errorf("OptimizerState after the loss: %v; want the lost device's error", err)
	}
	if err := e.Close(); err != nil {
		t.Errorf("Close after the loss: %v", err)
	}
}

// TestTrainLostDevice trains on the GPU engine with a checkpoint every 3
// iterations (bptt.Checkpointer, as dlca train does) and loses the device
// after iteration 4: the run stops with an error naming iteration 5 and the
// lost device, and the last good checkpoint is iteration 3's. That
// checkpoint holds the logits the GPU had then, and resumes, read back from
// its file as dlca train -resume PATH -device cpu does, on the CPU engine,
// whose next iteration's loss is the GPU's. (The message that names the
// checkpoint and the command that goes on is runctl's:
// cmd/internal/runctl.TestStoppedByALostDevice.)
func TestTrainLostDevice(t *testing.T) {
	const every, lostAfter, iterations = 3, 4, 8
	setup, run := xorTask(t)
	run.Iterations = iterations
	eng := newEngine(t, setup)
	path := filepath.Join(t.TempDir(), "checkpoint.json")
	k, err := bptt.NewCheckpointer(path, every, "xor", eng, &run, nil)
	if err != nil {
		t.Fatal(err)
	}
	var saved *dlca.Model // the GPU's model after the checkpointed iteration
	losses := map[int]float64{}
	// After the checkpointer, which NewCheckpointer added.
	run.Observers = append(run.Observers, func(ev bptt.Event) {
		losses[ev.Iteration] = ev.SoftLoss
		switch ev.Iteration {
		case every:
			m, err := eng.Model()
			if err != nil {
				t.Fatal(err)
			}
			saved = m
		case lostAfter:
			gpu.LoseDevice(t, -1) // for good, as a real loss
		}
	})
	_, _, trainErr := bptt.Train(context.Background(), eng, setup, run)
	lostMessage(t, "bptt.Train", trainErr, "iteration 5")
	if got := k.Saved(); got != every {
		t.Fatalf("the last good checkpoint is iteration %d's, want %d's", got, every)
	}

	// Resume on the CPU from the checkpoint's file alone, the device still lost.
	c, err := bptt.LoadCheckpoint(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Iteration != every {
		t.Fatalf("the checkpoint is at iteration %d, want %d", c.Iteration, every)
	}
	sameLogits(t, "the checkpoint", c.Model, "the GPU's at iteration 3", saved)
	resumed := setup
	resumed.Model = c.Model
	cpu, err := bptt.NewCPU(resumed)
	if err != nil {
		t.Fatal(err)
	}
	_, run2 := xorTask(t)
	run2.Iterations = iterations
	if _, err := bptt.NewCheckpointer(path, every, "xor", cpu, &run2, c); err != nil {
		t.Fatal(err)
	}
	m, err := cpu.Model()
	if err != nil {
		t.Fatal(err)
	}
	sameLogits(t, "the CPU engine resumed", m, "the checkpoint's", c.Model)
	metrics, _, err := bptt.Train(context.Background(), cpu, resumed, run2)
	if err != nil {
		t.Fatal(err)
	}
	if len(metrics) != iterations-every || metrics[0].Iteration != every+1 {
		t.Fatalf("the CPU trained %d iterations from %d, want %d from %d", len(metrics), metrics[0].Iteration, iterations-every, every+1)
	}
	if got, want := metrics[0].SoftLoss, losses[every+1]; math.Abs(got-want) > 1e-3*math.Max(1, want) {
		t.Errorf("iteration %d's loss: %v on the CPU resumed, %v on the GPU: not the same run", every+1, got, want)
	}
}

// sameLogits fails t unless models a and b hold the same logits.
func sameLogits(t *testing.T, aName string, a *dlca.Model, bName string, b *dlca.Model) {
	t.Helper()
	pa, pb := a.Params(), b.Params()
	if len(pa) != len(pb) {
		t.Fatalf("%s has %d layers, %s %d", aName, len(pa), bName, len(pb))
	}
	for l := range pa {
		for i := range pa[l].Len() {
			if x, y := pa[l].At(i), pb[l].At(i); x != y {
				t.Fatalf("layer %d logit %d: %s %v, %s %v", l, i, aName, x, bName, y)
			}
		}
	}
}
