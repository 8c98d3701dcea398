//go:build js && wasm

// Command trainwasm is the trainer of the page that `dlca export -format
// html-train` writes: the CPU engine (bptt) and the GPU engine (package gpu,
// on the browser's WebGPU) compiled to WebAssembly. At start it opens the
// browser's WebGPU device and reports what it found to
// globalThis.dlcaTrainProgress (kind "device": webgpu, adapter, error). It
// registers globalThis.dlcaTrain with start(config, iterations, seed,
// device), which trains the experiment file text config on device ("webgpu"
// or "cpu"), stop(), and, once a
// training has ended, model() (the trained model.json's text) and
// circuitPage() (the HTML page of its circuit, as dlca export -format html
// writes it). It reports every iteration to
// globalThis.dlcaTrainProgress(metrics, grid, wrong): the losses and the
// hard rollout of the model the iteration started from on the experiment's
// training grid (cell-major bits), with the cells that differ from the
// target (null without a fixed target). benchSim times circuit.Sim in
// WebAssembly. See docs/web.md.
package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"syscall/js"
	"time"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/experiments"
	"github.com/dlca/dlca/gpu"
	"github.com/dlca/dlca/web"
)

// webgpu is the browser's WebGPU device, opened once at start; nil when the
// browser offers none (webgpuErr says why).
var (
	webgpu    *gpu.Device
	webgpuErr error
	opened    = make(chan struct{}) // closed once the device is opened or refused
)

// openWebGPU opens the browser's WebGPU device and reports it to the page.
// It runs in a goroutine of its own: opening waits on the browser's
// promises (requestAdapter, requestDevice), which a call from JavaScript
// must not do.
func openWebGPU() {
	webgpu, webgpuErr = gpu.Open()
	close(opened)
	fields := map[string]any{"webgpu": webgpu != nil, "adapter": "", "error": ""}
	if webgpu != nil {
		fields["adapter"] = webgpu.String()
		fields["software"] = webgpu.IsSoftware()
	} else {
		fields["error"] = webgpuErr.Error()
	}
	report("device", fields, nil, nil)
}

// trained is the last training's outcome, for model() and circuitPage().
var trained struct {
	model *dlca.Model
	e     *experiments.Experiment
	seed  uint64
}

func main() {
	var cancel context.CancelFunc = func() {}
	api := js.Global().Get("Object").New()
	api.Set("start", js.FuncOf(func(_ js.Value, args []js.Value) any {
		cancel()
		var ctx context.Context
		ctx, cancel = context.WithCancel(context.Background())
		trained.model = nil
		onGPU := len(args) > 3 && args[3].String() == "webgpu"
		go train(ctx, args[0].String(), args[1].Int(), uint64(args[2].Int()), onGPU)
		return nil
	}))
	api.Set("stop", js.FuncOf(func(js.Value, []js.Value) any { cancel(); return nil }))
	api.Set("model", js.FuncOf(func(js.Value, []js.Value) any { return modelJSON() }))
	api.Set("circuitPage", js.FuncOf(func(js.Value, []js.Value) any { return circuitPage() }))
	// benchSim(netlistJSON, n, steps) times circuit.Sim on an n x n
	// periodic grid of random bits in WebAssembly and returns the
	// milliseconds, to compare with the page's generated JavaScript.
	api.Set("benchSim", js.FuncOf(func(_ js.Value, args []js.Value) any {
		nl, err := circuit.ReadNetlist(strings.NewReader(args[0].String()))
		if err != nil {
			return err.Error()
		}
		n, steps := args[1].Int(), args[2].Int()
		g := circuit.NewGrid(n, n, nl.Channels())
		g.Randomize(rand.New(rand.NewPCG(1, 2)))
		sim := circuit.NewSim(nl, circuit.Periodic, 1)
		sim.Run(g, 5) // warm up
		start := time.Now()
		sim.Run(g, steps)
		return float64(time.Since(start).Microseconds()) / 1000
	}))
	js.Global().Set("dlcaTrain", api)
	go openWebGPU()
	select {} // serve calls until the page closes
}

// report calls the page's progress function with a JavaScript object, the
// grid's bits and the cells marked wrong (either may be nil).
func report(kind string, fields map[string]any, grid []uint8, wrong []bool) {
	o := js.Global().Get("Object").New()
	o.Set("kind", kind)
	for k, v := range fields {
		o.Set(k, v)
	}
	var g js.Value = js.Null()
	if grid != nil {
		g = js.Global().Get("Uint8Array").New(len(grid))
		js.CopyBytesToJS(g, grid)
	}
	var wr js.Value = js.Null()
	if wrong != nil {
		b := make([]uint8, len(wrong))
		for i, w := range wrong {
			if w {
				b[i] = 1
			}
		}
		wr = js.Global().Get("Uint8Array").New(len(b))
		js.CopyBytesToJS(wr, b)
	}
	js.Global().Call("dlcaTrainProgress", o, g, wr)
}

// train trains the experiment file text config from a fresh model, as
// `dlca train -config` does with -seed and -wiring-seed both seed, on the
// browser's WebGPU device (onGPU, as -device gpu) or on the CPU, and keeps
// the model it trained in trained.
func train(ctx context.Context, config string, iterations int, seed uint64, onGPU bool) {
	e, err := resolve(config, iterations, seed)
	var m *dlca.Model
	if err == nil {
		m, err = dlca.New(e.Model, autograd.Float32)
	}
	var eng bptt.Engine
	var setup bptt.Setup
	device := "cpu"
	if err == nil {
		setup = e.Setup(m)
		eng, err = newEngine(setup, onGPU)
		if onGPU {
			device = "webgpu"
		}
	}
	if err != nil {
		report("error", map[string]any{"message": err.Error()}, nil, nil)
		return
	}
	defer eng.Close()
	h, w, c := e.Model.Height, e.Model.Width, e.Model.Channels
	// The grid shown: the hard rollout from one fixed initial state.
	init := autograd.New(e.Init(rand.New(rand.NewPCG(seed, 99)), h, w, c), 1, h, w, c)
	observe := func(ev bptt.Event) {
		final := ev.Model.Circuit().Rollout(dlca.BitsOf(init), e.Steps, dlca.HardOptions{Async: e.Async, Seed: seed})
		var wrong []bool
		if e.Target != nil {
			wrong = experiments.WrongMask(e, final)
		}
		report("iteration", map[string]any{
			"iteration": ev.Iteration, "iterations": ev.Iterations, "soft": ev.SoftLoss, "hard": ev.HardLoss,
			"gates": ev.ActiveGates, "ms": float64(ev.Time.Microseconds()) / 1000, "h": h, "w": w, "c": c, "device": device,
		}, final.Boards[0].Unpack(), wrong)
		time.Sleep(time.Millisecond) // let the browser draw and handle input
	}
	start := time.Now()
	metrics, m, err := bptt.Train(ctx, eng, setup, e.Run(observe))
	if err != nil && ctx.Err() == nil {
		report("error", map[string]any{"message": err.Error()}, nil, nil)
		return
	}
	// The model records the experiment it was trained by, as dlca train's
	// does: dlca eval and check read it from there.
	if err = e.Config.RecordIn(m); err != nil {
		report("error", map[string]any{"message": err.Error()}, nil, nil)
		return
	}
	if ctx.Err() == nil { // not replaced by a newer start meanwhile
		trained.model, trained.e, trained.seed = m, e, seed
	}
	report("done", map[string]any{"iterations": len(metrics), "seconds": time.Since(start).Seconds(), "message": fmt.Sprint(ctx.Err()), "device": device}, nil, nil)
}

// newEngine returns the engine that trains setup: the GPU engine on the
// browser's WebGPU device (onGPU), or the CPU engine.
func newEngine(setup bptt.Setup, onGPU bool) (bptt.Engine, error) {
	if !onGPU {
		return bptt.NewCPU(setup)
	}
	<-opened
	if webgpu == nil {
		return nil, fmt.Errorf("this browser offers no WebGPU device: %v", webgpuErr)
	}
	return gpu.NewEngine(setup, gpu.Options{Device: webgpu})
}

// resolve reads the experiment file text config with the page's
// iterations (0 = the file's) and seed (the batches' and the wiring's).
func resolve(config string, iterations int, seed uint64) (*experiments.Experiment, error) {
	cfg, err := experiments.Parse([]byte(config), "the page's experiment")
	if err != nil {
		return nil, err
	}
	cfg.Seed, cfg.WiringSeed = seed, seed
	if iterations > 0 {
		cfg.Iterations = iterations
	}
	return cfg.Resolve()
}

// modelJSON returns the trained model as its model.json text (the file
// dlca train writes, docs/model-format.md), or "" before a training ends.
func modelJSON() any {
	if trained.model == nil {
		return ""
	}
	var b strings.Builder
	if err := trained.model.Write(&b); err != nil {
		return "error: " + err.Error()
	}
	return b.String()
}

// circuitPage returns the page of the trained model's simplified circuit
// with its experiment's initial states and target, as dlca export -format
// html -model model.json writes it, or "" before a training ends.
func circuitPage() any {
	if trained.model == nil {
		return ""
	}
	nl, _ := circuit.Simplify(trained.model.Netlist())
	var b strings.Builder
	if err := web.Write(&b, web.ModelPage(trained.model, nl, trained.e, "model.json", trained.seed)); err != nil {
		return "error: " + err.Error()
	}
	return b.String()
}
