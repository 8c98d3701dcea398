package web

import (
	"context"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/experiments"
)

// The training page trains checkerboard-small on the browser's WebGPU (the
// GPU engine, package gpu, compiled to WebAssembly; Dawn on SwiftShader
// here): the loss falls, every iteration's soft loss is the CPU engine's
// within the GPU engine's parity (1e-4 relative, as TestEngineTrainsAsCPU
// holds it on lavapipe), and it ends on the circuit Go's CPU engine ends on
// with the same seeds, or, where float32 rounding parts them, both reach
// hard loss 0.
func TestTrainingPageOnWebGPU(t *testing.T) {
	// 12 iterations: SwiftShader trains about 0.7 a second here (the CPU
	// engine in WebAssembly 6.5); 40 end on the same circuit as Go's CPU
	// engine too.
	const name, iterations, seed = "checkerboard-small", 12, 23
	testBrowser(t)
	tr := testTrainer(t)
	ctx := openHTML(t, func(w io.Writer) error {
		return WriteTrain(w, &TrainPage{Experiment: name, Iterations: iterations, Seed: seed, Trainer: tr})
	}, "loss")
	adapter := webgpuAdapter(t, ctx)
	var s trainState
	waitFor := trainWaiter(t, ctx, &s)
	waitFor("ready", func() bool { return s.Ready })
	if !s.Device.Webgpu {
		t.Fatalf("the browser offers a WebGPU adapter (%s) but the trainer found no device: %s", adapter, s.Device.Error)
	}
	if device := eval[string](t, ctx, `document.getElementById("device").value`); device != "webgpu" {
		t.Errorf("the page chose %q with WebGPU offered, want webgpu", device)
	}
	if shown := eval[string](t, ctx, `document.getElementById("adapter").textContent`); !strings.Contains(shown, s.Device.Adapter) {
		t.Errorf("the page shows %q, not the adapter %q", shown, s.Device.Adapter)
	}
	eval[any](t, ctx, `document.getElementById("start").click()`)
	waitFor("done", func() bool { return s.Done })

	e, _ := experiments.Get(name)
	e.Iterations, e.Seed, e.Model.Seed = iterations, seed, seed
	m, err := dlca.New(e.Model, autograd.Float32)
	if err != nil {
		t.Fatal(err)
	}
	setup := e.Setup(m)
	eng, err := bptt.NewCPU(setup)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	want, wantModel, err := bptt.Train(context.Background(), eng, setup, e.Run())
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Metrics) != len(want) {
		t.Fatalf("the page reported %d iterations, Go trained %d", len(s.Metrics), len(want))
	}
	t.Logf("%s, %d iterations on WebGPU (%s): %.1f iterations/s; Go's CPU engine: hard loss %v, %d active gates at the end",
		name, iterations, s.Device.Adapter, s.Speeds["webgpu"], want[len(want)-1].HardLoss, want[len(want)-1].ActiveGates)
	for i, w := range want {
		g := s.Metrics[i]
		if g.Device != "webgpu" {
			t.Fatalf("iteration %d ran on %q, want webgpu", g.Iteration, g.Device)
		}
		if rel := math.Abs(g.Soft-w.SoftLoss) / math.Max(1, w.SoftLoss); !(rel <= 1e-4) {
			t.Errorf("iteration %d: soft loss on WebGPU %v, Go's CPU %v", w.Iteration, g.Soft, w.SoftLoss)
		}
	}
	first, last := s.Metrics[0], s.Metrics[len(s.Metrics)-1]
	if !(last.Soft < 0.95*first.Soft) {
		t.Errorf("the soft loss fell from %v to only %v in %d iterations on WebGPU", first.Soft, last.Soft, iterations)
	}
	// The circuits at the end: the page's trained model and Go's.
	got, err := dlca.Read(strings.NewReader(eval[string](t, ctx, "dlcaTrain.model()")), autograd.Float32)
	if err != nil {
		t.Fatalf("the page's trained model: %v", err)
	}
	w := want[len(want)-1]
	if netlistJSON(t, got) != netlistJSON(t, wantModel) && !(last.Hard == 0 && w.HardLoss == 0) {
		t.Errorf("the circuit trained on WebGPU (hard loss %v, %d active gates) differs from Go's CPU engine's (hard loss %v, %d active gates)",
			last.Hard, last.Gates, w.HardLoss, w.ActiveGates)
	}
	if s.Speeds["webgpu"] <= 0 || !strings.Contains(eval[string](t, ctx, `document.getElementById("speeds").textContent`), "WebGPU") {
		t.Error("the page shows no iterations per second on WebGPU")
	}
	// Switching: the same run on the CPU, in the same tab.
	start := time.Now()
	eval[any](t, ctx, `document.getElementById("device").value = "cpu"; document.getElementById("iterations").value = 4; document.getElementById("start").click()`)
	waitFor("done on the CPU", func() bool { return s.Done && len(s.Metrics) == 4 })
	for i, g := range s.Metrics {
		if g.Device != "cpu" || g.Soft != want[i].SoftLoss {
			t.Errorf("after switching, iteration %d on %q: soft loss %v, Go's CPU %v", g.Iteration, g.Device, g.Soft, want[i].SoftLoss)
		}
	}
	t.Logf("4 iterations on the CPU after switching: %v; iterations/s: %v", time.Since(start).Round(time.Millisecond), s.Speeds)
}

// netlistJSON returns m's hard circuit, simplified, as netlist JSON.
func netlistJSON(t *testing.T, m *dlca.Model) string {
	t.Helper()
	nl, _ := circuit.Simplify(m.Netlist())
	var b strings.Builder
	if err := nl.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
