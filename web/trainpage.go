package web

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/dlca/dlca/experiments"
	"github.com/dlca/dlca/internal/htmlpage"
	"github.com/dlca/dlca/viewer/painter"
)

// TrainPage is the training page: the CPU trainer compiled to WebAssembly
// trains an experiment in the browser tab, showing the hard rollout and
// the loss curve as it goes, and hands on what it trained (model.json, the
// circuit page).
type TrainPage struct {
	// Experiment names the built-in experiment to train, when Config is nil.
	Experiment string
	// Config, when not nil, is the experiment to train (an experiment
	// file's, say): the page carries it whole. The browser reads no files,
	// so it must not read its initial state or target from one.
	Config     *experiments.Config
	Iterations int    // 0 = the experiment's
	Seed       uint64 // the batches' and the wiring's seed, as dlca train -seed N -wiring-seed N
	Trainer    *Trainer
}

// Trainer is the WebAssembly build of web/trainwasm and the JavaScript
// support file of the Go toolchain that built it.
type Trainer struct {
	Wasm     []byte
	WasmExec []byte // $GOROOT/lib/wasm/wasm_exec.js
}

// TrainerPackage is the trainer's import path, which the command that
// exports the page builds to WebAssembly (internal/gowasm).
const TrainerPackage = "github.com/dlca/dlca/web/trainwasm"

//go:embed assets/train.html
var trainHTML string

//go:embed assets/train.js
var trainJS string

// WriteTrain writes the training page as one HTML file: the trainer,
// gzipped and in base64, and the script that runs it, with no external
// resources.
func WriteTrain(w io.Writer, p *TrainPage) error {
	if p.Trainer == nil || len(p.Trainer.Wasm) == 0 {
		return fmt.Errorf("web: training page without a trainer (build TrainerPackage to WebAssembly: internal/gowasm)")
	}
	if err := p.Check(); err != nil {
		return err
	}
	cfg, iterations, err := p.experiment()
	if err != nil {
		return err
	}
	var toml strings.Builder
	if err := cfg.WriteTOML(&toml); err != nil {
		return err
	}
	// json.Marshal escapes <, > and &, so no setting can close the script.
	settings, err := json.Marshal(map[string]any{"experiment": cfg.Name, "config": toml.String(), "iterations": iterations, "seed": p.Seed, "rgb": cfg.Colour, "colours": pageColours()})
	if err != nil {
		return err
	}
	return htmlpage.Fill(w, trainHTML, map[string]string{
		"Title":    html.EscapeString(cfg.Name),
		"Settings": string(settings),
		"Wasm":     htmlpage.GzipBase64(p.Trainer.Wasm),
		"Loader":   htmlpage.GoLoaderJS,
		"WasmExec": string(p.Trainer.WasmExec),
		"Script":   trainJS,
	})
}

// Check reports what is wrong with p's settings, if anything, without
// needing its trainer.
func (p *TrainPage) Check() error {
	if p.Iterations < 0 {
		return fmt.Errorf("web: %d iterations, want 0 (the experiment's) or more", p.Iterations)
	}
	_, _, err := p.experiment()
	return err
}

// experiment returns the configuration the page trains and the iterations
// its box starts with (the experiment's unless p gives them), refusing one
// that the browser cannot train.
func (p *TrainPage) experiment() (*experiments.Config, int, error) {
	cfg := p.Config
	if cfg == nil {
		var err error
		if cfg, err = experiments.Builtin(p.Experiment); err != nil {
			return nil, 0, err
		}
	}
	for _, f := range []struct{ key, file string }{{"init.file", cfg.Init.File}, {"target.file", cfg.Target.File}} {
		if f.file != "" {
			return nil, 0, fmt.Errorf("web: experiment %s reads %s = %s, and the training page reads no files (a browser tab has none): train it with dlca train -config or dlca-view -train", cfg.Name, f.key, f.file)
		}
	}
	e, err := cfg.Resolve()
	if err != nil {
		return nil, 0, err
	}
	iterations := p.Iterations
	if iterations == 0 {
		iterations = e.Iterations
	}
	return cfg, iterations, nil
}

// pageColours are the training page's colours, as CSS: the viewer's
// (viewer/painter), so that the page's loss plot and grid read as the
// viewer's do.
func pageColours() map[string]string {
	return map[string]string{
		"soft": painter.CSS(painter.SoftLossColour), "hard": painter.CSS(painter.HardLossColour),
		"wrong": painter.CSS(painter.WrongColour), "axis": painter.CSS(painter.PlotAxisColour),
		"text": painter.CSS(painter.PlotTextColour), "background": painter.CSS(painter.PlotBackground),
	}
}
