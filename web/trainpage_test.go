package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/experiments"
	"github.com/dlca/dlca/internal/gowasm"
)

type trainState struct {
	Ready, Running, Done, Trained bool
	Error                         string
	Webgpu                        bool
	Device                        struct { // the trainer's WebGPU device
		Webgpu, Software bool
		Adapter, Error   string
	}
	Speeds  map[string]float64 // iterations per second, by device
	Metrics []struct {
		Iteration int
		Soft      float64
		Hard      float64
		Gates     int
		Ms        float64
		Device    string
	}
}

// trainer is the WebAssembly trainer the tests share, built once.
var trainer struct {
	once sync.Once
	tr   *Trainer
	err  error
}

// testTrainer builds the trainer (GOOS=js GOARCH=wasm go build) the first
// time a test asks for it.
func testTrainer(t testing.TB) *Trainer {
	t.Helper()
	trainer.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		wasm, wasmExec, err := gowasm.Build(ctx, TrainerPackage)
		trainer.tr, trainer.err = &Trainer{Wasm: wasm, WasmExec: wasmExec}, err
	})
	if trainer.err != nil {
		t.Fatal(trainer.err)
	}
	return trainer.tr
}

// trainWaiter returns a function that polls the training page's state into
// *s until cond holds, failing the test on an error the page reports or
// after 90 s.
func trainWaiter(t *testing.T, ctx context.Context, s *trainState) func(what string, cond func() bool) {
	return func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(90 * time.Second)
		for {
			*s = eval[trainState](t, ctx, "window.dlcaTrainState")
			if s.Error != "" {
				t.Fatalf("the page: %s", s.Error)
			}
			if cond() {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the page is not %s after 90 s: %+v", what, *s)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// The training page trains checkerboard-small in the browser, the CPU
// engine compiled to WebAssembly, to the same losses as bptt.Train in Go
// with the same seeds.
func TestTrainingPageMatchesGo(t *testing.T) {
	const name, iterations, seed = "checkerboard-small", 8, 23
	testBrowser(t) // skip before building when there is no browser
	tr := testTrainer(t)
	ctx := openHTML(t, func(w io.Writer) error {
		return WriteTrain(w, &TrainPage{Experiment: name, Iterations: iterations, Seed: seed, Trainer: tr})
	}, "loss")
	var s trainState
	waitFor := trainWaiter(t, ctx, &s)
	waitFor("ready", func() bool { return s.Ready })
	t.Logf("the browser offers WebGPU: %v", s.Webgpu)
	start := time.Now()
	eval[any](t, ctx, `document.getElementById("device").value = "cpu"; document.getElementById("start").click()`)
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
	tr := testTrainer(b)
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

// The training page trains an experiment file's experiment, its iterations
// box showing the experiment's, and hands on what it trained: the
// model.json it downloads records that experiment and is a file dlca eval
// runs, and the circuit page it opens is the page dlca export -format html
// writes of that model.
func TestTrainingPageHandsOnItsModel(t *testing.T) {
	const iterations, seed = 3, 5
	testBrowser(t)
	tr := testTrainer(t)
	dir := t.TempDir()
	cfg, err := experiments.Builtin("checkerboard-small")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Name = "my-board"
	file := filepath.Join(dir, "my-board.toml")
	var text strings.Builder
	if err := cfg.WriteTOML(&text); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(text.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if cfg, err = experiments.Load(file); err != nil {
		t.Fatal(err)
	}
	ctx := openHTML(t, func(w io.Writer) error {
		return WriteTrain(w, &TrainPage{Config: cfg, Seed: seed, Trainer: tr})
	}, "loss")
	var s trainState
	waitFor := trainWaiter(t, ctx, &s)
	waitFor("ready", func() bool { return s.Ready })
	if box := eval[string](t, ctx, `document.getElementById("iterations").value`); box != strconv.Itoa(cfg.Iterations) {
		t.Errorf("the iterations box starts at %q, want the experiment's %d", box, cfg.Iterations)
	}
	if eval[bool](t, ctx, `!document.getElementById("download").disabled`) {
		t.Error("the download button is enabled before anything was trained")
	}
	downloads := filepath.Join(dir, "downloads")
	if _, err := chromedp.CallBrowser(ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
		Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllow, DownloadPath: downloads,
	}); err != nil {
		t.Fatal(err)
	}
	eval[any](t, ctx, fmt.Sprintf(`document.getElementById("iterations").value = %d; document.getElementById("start").click()`, iterations))
	waitFor("done", func() bool { return s.Done })
	if !s.Trained || len(s.Metrics) != iterations {
		t.Fatalf("after training: trained %v, %d iterations reported, want %d", s.Trained, len(s.Metrics), iterations)
	}

	// model.json, downloaded as a user would.
	eval[any](t, ctx, `document.getElementById("download").click()`)
	path := filepath.Join(downloads, "model.json")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("no model.json downloaded after 30 s: %v", err)
		}
	}
	m, err := dlca.Load(path)
	if err != nil {
		t.Fatalf("the downloaded model: %v", err)
	}
	rec, err := experiments.FromRecord(m.Experiment, path)
	if err != nil {
		t.Fatalf("the downloaded model's experiment: %v", err)
	}
	if rec.Name != "my-board" || rec.Iterations != iterations || rec.Seed != seed || rec.WiringSeed != seed {
		t.Errorf("the model records %s, %d iterations, seeds %d and %d; want my-board, %d, %d and %d", rec.Name, rec.Iterations, rec.Seed, rec.WiringSeed, iterations, seed, seed)
	}
	out, err := exec.Command("go", "run", "github.com/dlca/dlca/cmd/dlca", "eval", "-model", path, "-size", "8", "-steps", "20").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "my-board target") {
		t.Fatalf("dlca eval -model %s: %v\n%s\nwant a rollout compared with the my-board target", path, err, out)
	}

	// The circuit page, opened in a new tab from a blob: the page export
	// writes of the same model, the experiment's initial states included.
	opened := chromedp.WaitNewTarget(ctx, func(i *target.Info) bool { return i.Type == "page" })
	eval[any](t, ctx, `document.getElementById("circuit").click()`)
	select {
	case id := <-opened:
		tab, closeTab := chromedp.NewContext(ctx, chromedp.WithTargetID(id))
		defer closeTab()
		for deadline := time.Now().Add(30 * time.Second); !eval[bool](t, tab, `typeof window.dlca === "object"`); time.Sleep(100 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the new tab runs no circuit page after 30 s")
			}
		}
		if s := eval[pageState](t, tab, "dlca.state()"); s.Name != "my-board (model.json)" || s.H != 8 || s.W != 8 {
			t.Errorf("the circuit page's tab shows %q on %dx%d, want my-board (model.json) on its 8x8 grid", s.Name, s.H, s.W)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("open as circuit page opened no tab in 30 s")
	}
	page := eval[string](t, ctx, `fetch(window.dlcaTrainState.circuitPage).then((r) => r.text())`, chromedp.EvalAwaitPromise)
	e, err := experiments.ForModel(m, path, "", "")
	if err != nil {
		t.Fatal(err)
	}
	nl, _ := circuit.Simplify(m.Netlist())
	var want strings.Builder
	if err := Write(&want, ModelPage(m, nl, e, "model.json", seed)); err != nil {
		t.Fatal(err)
	}
	if page != want.String() {
		t.Errorf("the circuit page (%d bytes) is not the export's page of the downloaded model (%d bytes)", len(page), want.Len())
	}
	if !strings.Contains(page, `"init":`) || !strings.Contains(page, "my-board (model.json)") {
		t.Error("the circuit page carries no initial state or does not name the experiment")
	}
}
