//go:build js && wasm

// Command trainwasm is the trainer of the page that `dlca export -format
// html-train` writes: the CPU engine (bptt) compiled to WebAssembly. It
// registers globalThis.dlcaTrain.start(experiment, iterations, seed) and
// reports every iteration to globalThis.dlcaTrainProgress(metrics, grid):
// the losses and the hard rollout of the model the iteration started from
// on the experiment's training grid (cell-major bits). benchSim times
// circuit.Sim in WebAssembly. See docs/web.md.
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
)

func main() {
	var cancel context.CancelFunc = func() {}
	api := js.Global().Get("Object").New()
	api.Set("start", js.FuncOf(func(_ js.Value, args []js.Value) any {
		cancel()
		var ctx context.Context
		ctx, cancel = context.WithCancel(context.Background())
		go train(ctx, args[0].String(), args[1].Int(), uint64(args[2].Int()))
		return nil
	}))
	api.Set("stop", js.FuncOf(func(js.Value, []js.Value) any { cancel(); return nil }))
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
	select {} // serve calls until the page closes
}

// report calls the page's progress function with a JavaScript object.
func report(kind string, fields map[string]any, grid []uint8) {
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
	js.Global().Call("dlcaTrainProgress", o, g)
}

// train trains experiment name from a fresh model, as `dlca train` does
// on the CPU with -seed and -wiring-seed both seed.
func train(ctx context.Context, name string, iterations int, seed uint64) {
	e, err := experiments.Get(name)
	if err == nil && iterations > 0 {
		e.Iterations = iterations
	}
	var m *dlca.Model
	if err == nil {
		e.Seed, e.Model.Seed = seed, seed
		m, err = dlca.New(e.Model, autograd.Float32)
	}
	var eng *bptt.CPU
	var setup bptt.Setup
	if err == nil {
		setup = e.Setup(m)
		eng, err = bptt.NewCPU(setup)
	}
	if err != nil {
		report("error", map[string]any{"message": err.Error()}, nil)
		return
	}
	defer eng.Close()
	h, w, c := e.Model.Height, e.Model.Width, e.Model.Channels
	// The grid shown: the hard rollout from one fixed initial state.
	init := autograd.New(e.Init(rand.New(rand.NewPCG(seed, 99)), h, w, c), 1, h, w, c)
	observe := func(ev bptt.Event) {
		final := ev.Model.Circuit().Rollout(dlca.BitsOf(init), e.Steps, dlca.HardOptions{Async: e.Async, Seed: seed})
		report("iteration", map[string]any{
			"iteration": ev.Iteration, "iterations": ev.Iterations, "soft": ev.SoftLoss, "hard": ev.HardLoss,
			"gates": ev.ActiveGates, "ms": float64(ev.Time.Microseconds()) / 1000, "h": h, "w": w, "c": c,
		}, final.Boards[0].Cells())
		time.Sleep(time.Millisecond) // let the browser draw and handle input
	}
	start := time.Now()
	metrics, _, err := bptt.Train(ctx, eng, setup, e.Run(observe))
	if err != nil && ctx.Err() == nil {
		report("error", map[string]any{"message": err.Error()}, nil)
		return
	}
	report("done", map[string]any{"iterations": len(metrics), "seconds": time.Since(start).Seconds(), "message": fmt.Sprint(ctx.Err())}, nil)
}
