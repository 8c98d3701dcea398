package main

import (
	"context"
	"fmt"
	"io"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/experiments"
	"github.com/dlca/dlca/internal/gowasm"
	"github.com/dlca/dlca/web"
)

// htmlPage describes the page of model m (from file path) running netlist
// nl. Each size carries the initial state (drawn with seed) and, where it
// has a fixed one, the target of the experiment named (built-in or a
// file), or by default of the one the model records; a model that records
// none gets random states and no target.
func htmlPage(m *dlca.Model, nl *circuit.Netlist, path, experiment string, seed uint64) (*web.Page, error) {
	e, err := experiments.ForModel(m, path, experiment, "")
	if err != nil {
		return nil, err
	}
	return web.ModelPage(m, nl, e, path, seed), nil
}

// bitGrid thresholds values laid out [H][W][C] at 0.5, as dlca.BitsOf
// does for the hard circuit's inputs.
func bitGrid(v []float32, h, w, c int) *circuit.Grid {
	return dlca.BitsOf(autograd.New(v, 1, h, w, c)).Boards[0]
}

// exportTrainPage writes the page that trains the experiment file config,
// or the experiment named (built-in or a file), in the browser, building
// its WebAssembly trainer first (which needs the Go toolchain and the dlca
// sources: see internal/gowasm).
func exportTrainPage(ctx context.Context, experiment, config string, iterations int, seed uint64, out string, stdout, stderr io.Writer) error {
	switch {
	case experiment == "" && config == "":
		return fmt.Errorf("-format html-train needs -experiment NAME or -config FILE: the experiment to train in the browser")
	case experiment != "" && config != "":
		return fmt.Errorf("give -config FILE or -experiment NAME, not both")
	case out == "":
		return fmt.Errorf("-o is required: the file to write")
	case iterations < 0:
		return fmt.Errorf("-iterations %d: must not be negative (0 = the experiment's)", iterations)
	case seed >= 1<<53:
		return fmt.Errorf("-seed %d: the page holds seeds below 2^53 (JavaScript numbers)", seed)
	}
	cfg, err := experimentConfig(experiment, config, nil)
	if err != nil {
		return err
	}
	if err := checkOutput("-o", out, "", ""); err != nil {
		return err
	}
	page := &web.TrainPage{Config: cfg, Iterations: iterations, Seed: seed}
	if err := page.Check(); err != nil { // before the minute the build takes
		return err
	}
	info := infoWriter(out, stdout, stderr)
	fmt.Fprintln(info, "building the WebAssembly trainer (GOOS=js GOARCH=wasm go build)...")
	wasm, wasmExec, err := gowasm.Build(ctx, web.TrainerPackage)
	if err != nil {
		if ctx.Err() != nil {
			return errInterrupted // the build stopped and its folder removed
		}
		return err
	}
	page.Trainer = &web.Trainer{Wasm: wasm, WasmExec: wasmExec}
	if err := writeOutput(ctx, out, func(w io.Writer) error { return web.WriteTrain(w, page) }); err != nil {
		return err
	}
	fmt.Fprintf(info, "wrote %s (trainer %.1f MB before compression)\n", out, float64(len(page.Trainer.Wasm))/1e6)
	return nil
}
