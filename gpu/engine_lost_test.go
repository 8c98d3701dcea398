package gpu_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/gpu"
	"github.com/dlca/dlca/internal/runctl"
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

// TestTrainLostDevice trains on the GPU engine as dlca train does
// (runctl.LongRun, a checkpoint every 3 iterations) and loses the device
// after iteration 4: the run stops with an error naming iteration 5 and
// the lost device, and the message names the last good checkpoint
// (iteration 3). That checkpoint holds the logits the GPU had then, and
// resumes, as dlca train -resume PATH -device cpu does, on the CPU engine,
// whose next iteration's loss is the GPU's.
func TestTrainLostDevice(t *testing.T) {
	const every, lostAfter, iterations = 3, 4, 8
	setup, run := xorTask(t)
	run.Iterations = iterations
	eng := newEngine(t, setup)
	o := &runctl.LongRun{Command: "dlca train", Experiment: "xor", Out: t.TempDir(), Iterations: iterations, Seed: run.Seed, Device: "gpu", Every: every}
	var warn bytes.Buffer
	stop, err := o.Start(eng, &run, nil, &warn)
	if err != nil {
		t.Fatal(err)
	}
	var saved *dlca.Model // the GPU's model after the checkpointed iteration
	losses := map[int]float64{}
	// After the checkpointer, which Start added.
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
	stopped := o.Stopped(trainErr)
	stop()
	path := o.CheckpointPath()
	lostMessage(t, "LongRun.Stopped", stopped, "the last good checkpoint is "+path+" (iteration 3); go on with: dlca train -resume "+path+" (add -device cpu if the GPU stays gone)")
	t.Logf("the user sees:\n%v", stopped)

	// Resume on the CPU from the checkpoint alone, as dlca train -resume
	// PATH -device cpu does (the run's settings, the GPU's among them,
	// come from the checkpoint; -device overrides), the device still lost.
	r := &runctl.LongRun{Command: "dlca train"}
	fs := flag.NewFlagSet("dlca train", flag.ContinueOnError)
	fs.StringVar(&r.Device, "device", "cpu", "")
	r.AddFlags(fs)
	if err := fs.Parse([]string{"-resume", path, "-device", "cpu"}); err != nil {
		t.Fatal(err)
	}
	r.Given(fs)
	c, err := r.Resumed()
	if err != nil {
		t.Fatal(err)
	}
	if c.Iteration != every || r.Iterations != iterations || r.Out != o.Out || r.Device != "cpu" {
		t.Fatalf("resumed at iteration %d of %d into %s on %s, want %d of %d into %s on cpu", c.Iteration, r.Iterations, r.Out, r.Device, every, iterations, o.Out)
	}
	sameLogits(t, "the checkpoint", c.Model, "the GPU's at iteration 3", saved)
	resumed := setup
	resumed.Model = c.Model
	cpu, err := bptt.NewCPU(resumed)
	if err != nil {
		t.Fatal(err)
	}
	_, run2 := xorTask(t)
	run2.Iterations = r.Iterations
	stop, err = r.Start(cpu, &run2, c, &warn)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	m, err := cpu.Model()
	if err != nil {
		t.Fatal(err)
	}
	sameLogits(t, "the CPU engine resumed", m, "the checkpoint's", c.Model)
	metrics, _, err := bptt.Train(context.Background(), cpu, resumed, run2)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Finished(); err != nil {
		t.Fatal(err)
	}
	if len(metrics) != iterations-every || metrics[0].Iteration != every+1 {
		t.Fatalf("the CPU trained %d iterations from %d, want %d from %d", len(metrics), metrics[0].Iteration, iterations-every, every+1)
	}
	if got, want := metrics[0].SoftLoss, losses[every+1]; math.Abs(got-want) > 1e-3*math.Max(1, want) {
		t.Errorf("iteration %d's loss: %v on the CPU resumed, %v on the GPU: not the same run", every+1, got, want)
	}
	if warn.Len() > 0 {
		t.Errorf("warnings: %s", warn.String())
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
