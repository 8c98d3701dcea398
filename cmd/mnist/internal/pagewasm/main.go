//go:build js && wasm

// Command pagewasm is the trainer of the MNIST page that `mnist
// -export-html` writes (cmd/mnist/internal/mnistpage), compiled to
// WebAssembly. At start it reads the page's settings and data, opens the
// browser's WebGPU device and reports what it found to
// globalThis.dlcaMNISTProgress (kind "device": webgpu, adapter, error). It
// registers globalThis.dlcaMNIST with start(epochs, batch, lr, seed,
// device), which trains a fresh model on device ("webgpu" or "cpu"),
// reporting every step (kind "step") and every epoch (kind "epoch": loss,
// accuracy on the held-out images), then "done" or "error";
// predict(pixels), the class probabilities of a 28x28 image (a
// Uint8Array, 0 background, 255 ink) by the model as of the last epoch
// reported, or null before one; and weights(), that model's safetensors
// file (a Uint8Array). See docs/web.md.
package main

import (
	"encoding/json"
	"fmt"
	"syscall/js"
	"time"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/cmd/internal/mnist"
	"github.com/dlca/dlca/cmd/mnist/internal/mnistpage"
)

var (
	settings    mnistpage.Settings
	train, test *mnist.Set
	// webgpu is the browser's WebGPU device, opened once at start; nil
	// when the browser offers none (webgpuErr says why).
	webgpu    mnist.Device
	webgpuErr error
	opened    = make(chan struct{}) // closed once the device is opened or refused
	// latest is the model as of the last epoch reported; running is true
	// while a training runs (the page starts one at a time).
	latest  *mnistpage.Model
	running bool
)

func main() {
	if err := load(); err != nil {
		report("error", map[string]any{"message": err.Error()})
		return
	}
	api := js.Global().Get("Object").New()
	api.Set("start", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if running {
			return "a training is running"
		}
		s := settings
		s.Epochs, s.Batch, s.LR, s.Seed = args[0].Int(), args[1].Int(), args[2].Float(), uint64(args[3].Int())
		if s.Epochs <= 0 || s.Batch <= 0 || !(s.LR > 0) {
			return "epochs, batch and learning rate must be positive"
		}
		running = true
		go run(s, args[4].String() == "webgpu")
		return nil
	}))
	api.Set("predict", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if latest == nil {
			return js.Null()
		}
		px := make([]byte, args[0].Get("length").Int())
		js.CopyBytesToGo(px, args[0])
		probs, err := latest.Predict(px)
		if err != nil {
			return err.Error()
		}
		out := make([]any, len(probs))
		for i, p := range probs {
			out[i] = p
		}
		return out
	}))
	api.Set("weights", js.FuncOf(func(js.Value, []js.Value) any {
		if latest == nil {
			return js.Null()
		}
		b, err := latest.Safetensors()
		if err != nil {
			return "error: " + err.Error()
		}
		a := js.Global().Get("Uint8Array").New(len(b))
		js.CopyBytesToJS(a, b)
		return a
	}))
	js.Global().Set("dlcaMNIST", api)
	go openWebGPU()
	select {} // serve calls until the page closes
}

// load reads the page's settings and data (mnistpage.Write's).
func load() error {
	doc := js.Global().Get("document")
	if err := json.Unmarshal([]byte(doc.Call("getElementById", "dlca-settings").Get("textContent").String()), &settings); err != nil {
		return fmt.Errorf("the page's settings: %v", err)
	}
	data := js.Global().Get("dlcaData") // unpacked by the page before it starts the trainer
	b := make([]byte, data.Get("length").Int())
	js.CopyBytesToGo(b, data)
	var err error
	train, test, err = mnistpage.DecodeData(settings, b)
	return err
}

// openWebGPU opens the browser's WebGPU device and reports it to the page.
// It runs in a goroutine of its own: opening waits on the browser's
// promises, which a call from JavaScript must not do.
func openWebGPU() {
	webgpu, _, webgpuErr = mnist.NewDevice("gpu")
	close(opened)
	fields := map[string]any{"webgpu": webgpu != nil, "adapter": "", "error": ""}
	if webgpu != nil {
		fields["adapter"] = fmt.Sprint(webgpu) // "gpu (the adapter ...)"
	} else {
		fields["error"] = webgpuErr.Error()
	}
	report("device", fields)
}

// run trains with s on the browser's WebGPU device (onGPU) or the CPU.
func run(s mnistpage.Settings, onGPU bool) {
	defer func() { running = false }()
	var dev mnist.Device = mnist.On(autograd.CPU)
	device := "cpu"
	if onGPU {
		<-opened
		if webgpu == nil {
			report("error", map[string]any{"message": "this browser offers no WebGPU device: " + webgpuErr.Error()})
			return
		}
		dev, device = webgpu, "webgpu"
	}
	yielded := time.Now()
	step := func(epoch, step, steps int) {
		// Training on the CPU never waits, so the browser would neither
		// draw nor answer: hand it the thread now and then.
		if time.Since(yielded) > 30*time.Millisecond {
			report("step", map[string]any{"epoch": epoch, "step": step, "steps": steps, "device": device})
			time.Sleep(time.Millisecond)
			yielded = time.Now()
		}
	}
	epoch := func(e mnistpage.Epoch, m *mnistpage.Model) {
		latest = m
		report("epoch", map[string]any{"epoch": e.Epoch, "epochs": e.Epochs, "loss": e.Loss, "accuracy": e.Accuracy, "seconds": e.Seconds, "device": device})
		time.Sleep(time.Millisecond) // let the browser draw
	}
	start := time.Now()
	if _, err := mnistpage.Train(s, train, test, dev, step, epoch); err != nil {
		report("error", map[string]any{"message": err.Error()})
		return
	}
	report("done", map[string]any{"seconds": time.Since(start).Seconds(), "device": device})
}

// report calls the page's progress function with a JavaScript object.
func report(kind string, fields map[string]any) {
	o := js.Global().Get("Object").New()
	o.Set("kind", kind)
	for k, v := range fields {
		o.Set(k, v)
	}
	js.Global().Call("dlcaMNISTProgress", o)
}
