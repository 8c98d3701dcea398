package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/experiments"
	"github.com/dlca/dlca/web"
)

// pageSizes are the square grid sizes an HTML page offers after the
// model's training grid.
var pageSizes = []int{32, 64, 128, 256}

// htmlPage describes the page of model m (from file path) running netlist
// nl. With an experiment name, each size carries the experiment's initial
// state (drawn with seed) and its target where it has a fixed one.
func htmlPage(m *dlca.Model, nl *circuit.Netlist, path, experiment string, seed uint64) (*web.Page, error) {
	p := &web.Page{Name: path, Netlist: nl, Boundary: m.Config.Boundary, FireRate: m.Config.FireRate, Seed: seed}
	var e *experiments.Experiment
	if experiment != "" {
		var err error
		if e, m, err = loadModel(path, experiment); err != nil {
			return nil, err
		}
		p.Name, p.RGB = fmt.Sprintf("%s (%s)", e.Name, path), e.Colour
	}
	sizes := [][2]int{{m.Config.Height, m.Config.Width}}
	for _, n := range pageSizes {
		if n != m.Config.Height || n != m.Config.Width {
			sizes = append(sizes, [2]int{n, n})
		}
	}
	c := m.Config.Channels
	rng := rand.New(rand.NewPCG(seed, 0))
	for _, hw := range sizes {
		s := web.Size{H: hw[0], W: hw[1]}
		if e != nil {
			s.Init = bitGrid(e.Init(rng, s.H, s.W, c), s.H, s.W, c)
			if e.Target != nil {
				s.Target, s.TargetChannels = bitGrid(e.Target(s.H, s.W), s.H, s.W, len(e.LossChannels)), e.LossChannels
			}
		}
		p.Sizes = append(p.Sizes, s)
	}
	return p, nil
}

// bitGrid thresholds values laid out [H][W][C] at 0.5, as dlca.BitsOf
// does for the hard circuit's inputs.
func bitGrid(v []float32, h, w, c int) *circuit.Grid {
	return dlca.BitsOf(autograd.New(v, 1, h, w, c)).Boards[0]
}

// exportTrainPage writes the page that trains experiment in the browser,
// building its WebAssembly trainer first (which needs the Go toolchain and
// the dlca sources: see web.BuildTrainer).
func exportTrainPage(ctx context.Context, experiment string, iterations int, seed uint64, out string, stdout, stderr io.Writer) error {
	switch {
	case experiment == "":
		return fmt.Errorf("-format html-train needs -experiment: the experiment to train in the browser")
	case out == "":
		return fmt.Errorf("-o is required: the file to write")
	case iterations < 0:
		return fmt.Errorf("-iterations %d: must not be negative (0 = the experiment's)", iterations)
	case seed >= 1<<53:
		return fmt.Errorf("-seed %d: the page holds seeds below 2^53 (JavaScript numbers)", seed)
	}
	if _, err := experiments.Get(experiment); err != nil {
		return err
	}
	if err := checkOutput("-o", out, "", ""); err != nil {
		return err
	}
	info := infoWriter(out, stdout, stderr)
	fmt.Fprintln(info, "building the WebAssembly trainer (GOOS=js GOARCH=wasm go build)...")
	tr, err := web.BuildTrainer(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return errInterrupted // the build stopped and its folder removed
		}
		return err
	}
	page := &web.TrainPage{Experiment: experiment, Iterations: iterations, Seed: seed, Trainer: tr}
	if err := writeOutput(ctx, out, func(w io.Writer) error { return web.WriteTrain(w, page) }); err != nil {
		return err
	}
	fmt.Fprintf(info, "wrote %s (trainer %.1f MB before compression)\n", out, float64(len(tr.Wasm))/1e6)
	return nil
}
