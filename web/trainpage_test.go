package web

import (
	"context"
	"encoding/json"
	"fmt"
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

type trainState struct {
	Ready, Running, Done bool
	Error                string
	Webgpu               bool
	Metrics              []struct {
		Iteration int
		Soft      float64
		Hard      float64
		Gates     int
		Ms        float64
	}
}

// The training page trains checkerboard-small in the browser, the CPU
// engine compiled to WebAssembly, to the same losses as bptt.Train in Go
// with the same seeds.
func TestTrainingPageMatchesGo(t *testing.T) {
	const name, iterations, seed = "checkerboard-small", 8, 23
	testBrowser(t) // skip before building when there is no browser
	ctx0, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tr, err := BuildTrainer(ctx0)
	if err != nil {
		t.Fatal(err)
	}
	ctx := openHTML(t, func(w io.Writer) error {
		return WriteTrain(w, &TrainPage{Experiment: name, Iterations: iterations, Seed: seed, Trainer: tr})
	}, "loss")
	var s trainState
	waitFor := func(what string, cond func() bool) {
		deadline := time.Now().Add(90 * time.Second)
		for {
			s = eval[trainState](t, ctx, "window.dlcaTrainState")
			if s.Error != "" {
				t.Fatalf("the page: %s", s.Error)
			}
			if cond() {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the page is not %s after 90 s: %+v", what, s)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	waitFor("ready", func() bool { return s.Ready })
	t.Logf("the browser offers WebGPU: %v", s.Webgpu)
	start := time.Now()
	eval[any](t, ctx, `document.getElementById("start").click()`)
	waitFor("done", func() bool { return s.Done })
	browserTime := time.Since(start)

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
	start = time.Now()
	want, _, err := bptt.Train(context.Background(), eng, setup, e.Run())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d iterations of %s: browser (WebAssembly) %v, Go %v", iterations, name, browserTime.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	if len(s.Metrics) != len(want) {
		t.Fatalf("the page reported %d iterations, Go trained %d", len(s.Metrics), len(want))
	}
	for i, w := range want {
		g := s.Metrics[i]
		if g.Iteration != w.Iteration || g.Hard != w.HardLoss || g.Gates != w.ActiveGates || math.Abs(g.Soft-w.SoftLoss) > 1e-9*math.Max(1, w.SoftLoss) {
			t.Errorf("iteration %d: page soft %v hard %v gates %d; Go soft %v hard %v gates %d", w.Iteration, g.Soft, g.Hard, g.Gates, w.SoftLoss, w.HardLoss, w.ActiveGates)
		} else if g.Soft != w.SoftLoss {
			t.Logf("iteration %d: soft losses differ in the last bits: page %v, Go %v", w.Iteration, g.Soft, w.SoftLoss)
		}
	}
}

// BenchmarkWasmSimLife: circuit.Sim compiled to WebAssembly, in headless
// Chromium, on BenchmarkPageLife's 256x256 Game of Life: the figures behind
// docs/web.md's choice of generated JavaScript for the page.
func BenchmarkWasmSimLife(b *testing.B) {
	const n, steps = 256, 200
	testBrowser(b)
	tr, err := BuildTrainer(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	ctx := openHTML(b, func(w io.Writer) error {
		return WriteTrain(w, &TrainPage{Experiment: "gameoflife", Trainer: tr})
	}, "loss")
	for !eval[bool](b, ctx, "window.dlcaTrainState.ready") {
		time.Sleep(50 * time.Millisecond)
	}
	s, _ := circuit.Simplify(learned(b, "life"))
	var js strings.Builder
	if err := s.WriteJSON(&js); err != nil {
		b.Fatal(err)
	}
	q, _ := json.Marshal(js.String())
	var ms float64
	for b.Loop() {
		ms += eval[float64](b, ctx, fmt.Sprintf("dlcaTrain.benchSim(%s, %d, %d)", q, n, steps))
	}
	b.ReportMetric(float64(n*n*steps*b.N)/(ms/1000), "cell-updates/s")
}
