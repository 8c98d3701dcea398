package main

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/nn"
	"github.com/dlca/dlca/autograd/nn/tensorfile"
	"github.com/dlca/dlca/cmd/internal/mnist"
	"github.com/dlca/dlca/internal/browsertest"
	"github.com/dlca/dlca/internal/idx"
)

func TestMain(m *testing.M) {
	code := m.Run()
	browsertest.Close()
	os.Exit(code)
}

// pageState is the MNIST page's window.dlcaMNISTState.
type pageState struct {
	Ready, Running, Done, Trained bool
	Error                         string
	Device                        struct {
		Webgpu         bool
		Adapter, Error string
	}
	Epochs []struct {
		Epoch          int
		Loss, Accuracy float64
		Seconds        float64
		Device         string
	}
	Seconds    map[string]float64
	Prediction *struct {
		Label int
		Probs []float64
	}
}

// TestPageTrainsMNIST exports the MNIST page (mnist -export-html, its
// defaults: the MLP on the first 1,000 training images, measured on the
// first 1,000 test images), trains it in headless Chromium, on WebGPU
// where the browser offers it (Dawn on SwiftShader here; required with
// DLCA_REQUIRE_WEBGPU=1) and else on the CPU, and checks that it reaches
// at least 80% on the held-out digits, that a digit drawn on the canvas
// gets a prediction, the one Go's MLP with the downloaded weights makes of
// the same 28x28 input, and that the download is a safetensors file of
// the MLP's tensors under PyTorch's names whose held-out accuracy in Go is
// the page's.
func TestPageTrainsMNIST(t *testing.T) {
	browsertest.Browser(t) // skip before building when there is no browser
	dir := t.TempDir()
	path := filepath.Join(dir, "mnist.html")
	if err := run([]string{"-export-html", path}); err != nil {
		t.Fatal(err)
	}
	html, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := browsertest.Open(t, func(w io.Writer) error { _, err := w.Write(html); return err }, "draw")
	var s pageState
	waitFor := func(what string, limit time.Duration, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(limit); ; time.Sleep(100 * time.Millisecond) {
			s = browsertest.Eval[pageState](t, ctx, "window.dlcaMNISTState")
			if s.Error != "" {
				t.Fatalf("the page: %s", s.Error)
			}
			if cond() {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the page is not %s after %v: %+v", what, limit, s)
			}
		}
	}
	waitFor("ready", 60*time.Second, func() bool { return s.Ready })
	device := "cpu"
	switch {
	case s.Device.Webgpu:
		device = "webgpu"
	case os.Getenv(browsertest.RequireWebGPUEnv) == "1":
		t.Fatalf("the page found no WebGPU device (%s=1 requires one): %s", browsertest.RequireWebGPUEnv, s.Device.Error)
	default:
		t.Logf("no WebGPU (%s): training on the CPU", s.Device.Error)
	}
	if chosen := browsertest.Eval[string](t, ctx, `document.getElementById("device").value`); chosen != device {
		t.Errorf("the page chose %q, want %q", chosen, device)
	}
	downloads := filepath.Join(dir, "downloads")
	if _, err := chromedp.CallBrowser(ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
		Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllow, DownloadPath: downloads,
	}); err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	browsertest.Eval[any](t, ctx, `document.getElementById("start").click()`)
	waitFor("done", 3*time.Minute, func() bool { return s.Done })
	t.Logf("trained on %s (%s) in %v: held-out accuracy by epoch %v", device, s.Device.Adapter, time.Since(start).Round(time.Millisecond), accuracies(s))
	if len(s.Epochs) != pageEpochs+1 {
		t.Fatalf("the page reported %d epochs, want epoch 0 and %d", len(s.Epochs), pageEpochs)
	}
	for _, e := range s.Epochs {
		if e.Device != device {
			t.Fatalf("epoch %d ran on %q, want %q", e.Epoch, e.Device, device)
		}
	}
	first, last := s.Epochs[1], s.Epochs[len(s.Epochs)-1]
	if acc := last.Accuracy; !(acc >= 0.80) {
		t.Errorf("held-out accuracy %.1f%% after %d epochs, want at least 80%%", 100*acc, pageEpochs)
	}
	if !(s.Epochs[0].Accuracy < 0.3) || !(last.Loss < 0.5*first.Loss) {
		t.Errorf("accuracy %.3f before training; loss %.4f after the first epoch and %.4f after the last: it did not train", s.Epochs[0].Accuracy, first.Loss, last.Loss)
	}

	// A 1 drawn on the canvas: a vertical stroke, by pointer events.
	browsertest.Eval[any](t, ctx, `(() => {
		const cv = document.getElementById("draw"), r = cv.getBoundingClientRect();
		const ev = (type, y) => cv.dispatchEvent(new PointerEvent(type, { clientX: r.left + 140, clientY: r.top + y, buttons: 1, pointerId: 1, bubbles: true }));
		ev("pointerdown", 50);
		for (let y = 60; y <= 230; y += 10) ev("pointermove", y);
		ev("pointerup", 230);
	})()`)
	waitFor("predicting", 10*time.Second, func() bool { return s.Prediction != nil })
	shown := browsertest.Eval[string](t, ctx, `document.getElementById("prediction").textContent`)
	p := s.Prediction
	if len(p.Probs) != mnist.Classes || shown != fmt.Sprint(p.Label) || math.Abs(sum(p.Probs)-1) > 1e-4 {
		t.Fatalf("the page shows %q for the drawing, its prediction %+v: want the class with the largest of 10 probabilities", shown, *p)
	}
	if p.Label != 1 {
		t.Errorf("a vertical stroke is read as %d (probabilities %.3f), want 1", p.Label, p.Probs)
	}
	// (As []int: chromedp hands a []byte the raw JSON.)
	drawn := browsertest.Eval[[]int](t, ctx, `Array.from(document.getElementById("input").getContext("2d").getImageData(0, 0, 28, 28).data.filter((_, i) => i % 4 === 0))`)

	// The weights, downloaded as a person would.
	browsertest.Eval[any](t, ctx, `document.getElementById("download").click()`)
	file := filepath.Join(downloads, "mnist-mlp.safetensors")
	var b []byte
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if b, err = os.ReadFile(file); err == nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("no weights downloaded after 30 s: %v", err)
		}
	}
	sd, meta, err := tensorfile.ReadSafetensors(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("the downloaded weights: %v", err)
	}
	// PyTorch's names and shapes of nn.Sequential(Flatten, Linear(784,
	// 128), ReLU, Linear(128, 10)).state_dict().
	want := map[string][]int{"1.weight": {128, 784}, "1.bias": {128}, "3.weight": {10, 128}, "3.bias": {10}}
	if len(sd) != len(want) || meta["format"] != "pt" {
		t.Errorf("the download holds %d tensors (metadata %v), want the MLP's 4 and format pt", len(sd), meta)
	}
	for _, e := range sd {
		if shape, ok := want[e.Name]; !ok || !slices.Equal(e.Shape, shape) || e.DType != tensorfile.F32 {
			t.Errorf("the download holds %s %v %v, want %v float32", e.Name, e.DType, e.Shape, shape)
		}
	}
	m := mnist.NewMLP(autograd.Float32, rand.New(rand.NewPCG(9, 9)))
	if err := nn.LoadStateDict(m, sd); err != nil {
		t.Fatal(err)
	}
	_, test, err := mnist.MNIST.Load("")
	if err != nil {
		t.Fatal(err)
	}
	acc, err := mnist.Accuracy(m, mnist.On(autograd.CPU), test.Head(1000))
	if err != nil {
		t.Fatal(err)
	}
	// The page measured on its device (WebGPU's float32 sums round
	// otherwise than the CPU's): an image or two may part them.
	if math.Abs(acc-last.Accuracy) > 0.002 {
		t.Errorf("the downloaded weights classify %.1f%% of the held-out images in Go, the page said %.1f%%", 100*acc, 100*last.Accuracy)
	}
	input := make([]byte, len(drawn))
	for i, v := range drawn {
		input[i] = byte(v)
	}
	one := &mnist.Set{Set: &idx.Set{Images: input, Labels: []int{0}, Rows: 28, Cols: 28}, Mean: mnist.MNIST.Mean, Std: mnist.MNIST.Std}
	x, _ := one.Input([]int{0})
	probs := autograd.Softmax(m.Forward(x), 1).Data32()
	for i, q := range probs {
		if math.Abs(float64(q)-p.Probs[i]) > 1e-5 {
			t.Fatalf("Go's MLP with the downloaded weights gives the drawing's 28x28 input probabilities %v, the page %v", probs, p.Probs)
		}
	}

	// Switching: one epoch on the CPU (WebAssembly) in the same tab.
	if device == "webgpu" {
		start = time.Now()
		browsertest.Eval[any](t, ctx, `document.getElementById("device").value = "cpu"; document.getElementById("epochs").value = 1; document.getElementById("start").click()`)
		waitFor("done on the CPU", time.Minute, func() bool { return s.Done })
		if len(s.Epochs) != 2 || s.Epochs[1].Device != "cpu" || !(s.Epochs[1].Accuracy > 0.5) {
			t.Errorf("one epoch on the CPU after switching: %+v", s.Epochs)
		}
		t.Logf("one epoch on the CPU: %v; seconds per epoch by device: %v", time.Since(start).Round(time.Millisecond), s.Seconds)
	}
}

func accuracies(s pageState) string {
	var a []string
	for _, e := range s.Epochs {
		a = append(a, fmt.Sprintf("%.1f%% (%.1f s)", 100*e.Accuracy, e.Seconds))
	}
	return strings.Join(a, " ")
}

func sum(v []float64) float64 {
	t := 0.0
	for _, x := range v {
		t += x
	}
	return t
}
