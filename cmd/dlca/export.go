package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"

	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/experiments"
	"github.com/dlca/dlca/internal/safefile"
	"github.com/dlca/dlca/web"
)

// runExport writes a saved model's hard circuit as Verilog, C, DigitalJS,
// Graphviz DOT, netlist JSON or a self-contained HTML page that runs it,
// simplified unless -simplify=false. The Verilog and C exports carry the
// model's grid and boundary; C comes with a header and Verilog, on
// request, with a testbench that checks it against the simulator.
func runExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("dlca export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	model := fs.String("model", "", "model file (required, except for html-train)")
	format := fs.String("format", "verilog", "verilog, c, digitaljs, dot, json, html (a page that runs the circuit in a browser), html-train (a page that trains -experiment or -config in the browser; docs/web.md) or npz (the parameters as NumPy arrays in the paper's notebook's layout; docs/model-format.md)")
	out := fs.String("o", "", "output file (required; written atomically; - for standard output)")
	name := fs.String("name", "rule", "module, function and graph name (an identifier)")
	simplify := fs.Bool("simplify", true, "simplify the circuit first and print the gate counts per network")
	experiment := fs.String("experiment", "", "with -format html: the experiment (built-in or a file) whose initial states and target the page offers (default: the one the model records; for a model without one, random states and no target); with -testbench: the experiment whose initial state it starts from (default: random bits); with html-train: the experiment to train")
	config := fs.String("config", "", "with -format html-train: the experiment file to train (docs/config.md)")
	seed := fs.Uint64("seed", 23, "with -format html: seed of the initial states and of the page's random states and fire masks; with -testbench: seed of its initial state; with html-train: the training's seed")
	iterations := fs.Int("iterations", 0, "with -format html-train: iterations (0 = the experiment's)")
	header := fs.String("header", "", "with -format c: the header file to write (default: -o with .c replaced by .h; none when -o is -)")
	testbench := fs.String("testbench", "", "with -format verilog: also write a Verilog testbench to this file that runs the grid module for -steps steps and checks each state against the simulator (iverilog -o sim RULE.v TESTBENCH.v && vvp -n sim)")
	steps := fs.Int("steps", 20, "with -testbench: the synchronous steps it runs and checks")
	maxOutput := fs.String("max-output", "", "with -testbench: refuse a testbench larger than this (e.g. 100MB; it holds one state a step; default: the free space on its disk)")
	keep := fs.String("keep", "", "comma-separated channels to keep, such as 0: every channel that never influences them is frozen (keeps its value; no gates), so the circuit is what they need (default: all channels)")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if *format == "html-train" {
		return exportTrainPage(ctx, *experiment, *config, *iterations, *seed, *out, stdout, stderr)
	}
	switch {
	case *model == "":
		return fmt.Errorf("-model is required: the model file to export")
	case *out == "":
		return fmt.Errorf("-o is required: the file to write")
	}
	if err := checkOutput("-o", *out, "model file", *model); err != nil {
		return err
	}
	info := infoWriter(*out, stdout, stderr)
	if *format == "npz" {
		return exportNPZ(ctx, *model, *out, info)
	}
	html := *format == "html"
	var f circuit.Format
	if !html {
		var err error
		if f, err = circuit.ParseFormat(*format); err != nil {
			return fmt.Errorf("unknown export format %q (want verilog, c, digitaljs, dot, json, html, html-train or npz)", *format)
		}
	}
	// The extra files: C's header and Verilog's testbench.
	switch {
	case *header != "" && (html || f != circuit.C):
		return fmt.Errorf("-header is for -format c (the C header); -format %s writes none", *format)
	case *testbench != "" && (html || f != circuit.Verilog):
		return fmt.Errorf("-testbench is for -format verilog; -format %s has none", *format)
	case *testbench != "" && *steps < 1:
		return fmt.Errorf("-steps %d: the testbench needs at least 1 step", *steps)
	}
	if !html && f == circuit.C && *header == "" && !safefile.IsStdout(*out) {
		*header = strings.TrimSuffix(*out, ".c") + ".h"
		// Nobody named this file: replace only a header an earlier export
		// wrote, never one of the user's own.
		if err := onlyGenerated(*header); err != nil {
			return err
		}
	}
	for flag, path := range map[string]string{"-header": *header, "-testbench": *testbench} {
		if path == "" {
			continue
		}
		if err := checkOutput(flag, path, "model file", *model); err != nil {
			return err
		}
		if err := notInput(flag, path, "-o file", *out); err != nil {
			return err
		}
		if safefile.IsStdout(path) && safefile.IsStdout(*out) {
			return fmt.Errorf("%s %s: -o is standard output already; name a file for one of them", flag, path)
		}
	}
	if *config != "" {
		return fmt.Errorf("-config is for -format html-train; -format %s takes -experiment NAME or FILE", *format)
	}
	if *experiment != "" && (html || *testbench != "") {
		if _, err := experiments.Lookup(*experiment); err != nil {
			return err
		}
	}
	m, err := dlca.Load(*model)
	if err != nil {
		return err
	}
	nl := m.Netlist()
	if *keep != "" {
		if nl, err = keepChannels(nl, *keep, info); err != nil {
			return err
		}
	}
	if *simplify {
		var report circuit.Report
		nl, report = circuit.Simplify(nl)
		fmt.Fprint(info, report)
	}
	// The model's own grid, so that the Verilog grid module and the C
	// header default to the grid and boundary the rule was trained on.
	opts := circuit.Options{Name: *name, Height: m.Config.Height, Width: m.Config.Width, Boundary: m.Config.Boundary}
	var bench *testbenchStart
	if *testbench != "" {
		need := circuit.VerilogTestbenchSize(opts.Height, opts.Width, nl.Channels(), *steps, len(*name))
		if err := checkOutputSize("-testbench", *testbench, need, *maxOutput); err != nil {
			return err
		}
		if bench, err = newTestbenchStart(m, *model, *experiment, *seed); err != nil {
			return err
		}
	}
	// On an error (a -name that is no identifier, say) or an interrupt,
	// writeOutput removes its temporary file: nothing is left behind.
	write := func(w io.Writer) error { return circuit.Write(w, nl, f, opts) }
	if html {
		page, err := htmlPage(m, nl, *model, *experiment, *seed)
		if err != nil {
			return err
		}
		write = func(w io.Writer) error { return web.Write(w, page) }
	}
	if err := writeOutput(ctx, *out, write); err != nil {
		return err
	}
	grid := ""
	if !html && (f == circuit.Verilog || f == circuit.C) {
		grid = fmt.Sprintf(", for the model's %dx%d grid with the %v boundary", opts.Height, opts.Width, opts.Boundary)
	}
	fmt.Fprintf(info, "wrote %s (%d gates, %v%s)\n", *out, len(nl.Gates), *format, grid)
	switch {
	case *header != "":
		if err := writeOutput(ctx, *header, func(w io.Writer) error { return circuit.WriteCHeader(w, nl, opts) }); err != nil {
			return err
		}
		fmt.Fprintf(info, "wrote %s (the C header)\n", *header)
	case !html && f == circuit.C:
		fmt.Fprintln(info, "no C header written (-o is standard output; name one with -header); the source declares everything itself")
	}
	if bench == nil {
		return nil
	}
	if err := writeOutput(ctx, *testbench, func(w io.Writer) error {
		return circuit.WriteVerilogTestbench(w, nl, opts, bench.grid, *steps)
	}); err != nil {
		return err
	}
	rule := *out
	if safefile.IsStdout(rule) {
		rule = *name + ".v"
	}
	fmt.Fprintf(info, "wrote %s (testbench: %d steps from %s, seed %d); run it with\n  iverilog -o sim %s %s && vvp -n sim\n", *testbench, *steps, bench.from, *seed, rule, *testbench)
	return nil
}

// testbenchStart is the initial state of a Verilog testbench.
type testbenchStart struct {
	grid *circuit.Grid
	from string // where it came from, in words
}

// newTestbenchStart draws the initial state of model m's (from file path)
// testbench on its training grid with seed: experiment's initial state, or
// random bits without one.
func newTestbenchStart(m *dlca.Model, path, experiment string, seed uint64) (*testbenchStart, error) {
	rng := rand.New(rand.NewPCG(seed, 0))
	h, w, c := m.Config.Height, m.Config.Width, m.Config.Channels
	if experiment == "" {
		g := circuit.NewGrid(h, w, c)
		g.Randomize(rng)
		return &testbenchStart{g, "random bits"}, nil
	}
	e, _, err := loadModel(path, experiment) // checks the channels agree
	if err != nil {
		return nil, err
	}
	return &testbenchStart{bitGrid(e.Init(rng, h, w, c), h, w, c), e.Name + "'s initial state"}, nil
}

// onlyGenerated returns an error if path exists and is not a file that an
// earlier export wrote (circuit.Generated near its top).
func onlyGenerated(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	if !bytes.Contains(head[:n], []byte(circuit.Generated)) {
		return fmt.Errorf("the C header %s exists and was not written by dlca export: name the header with -header FILE, or move it", path)
	}
	return nil
}

// keepChannels applies -keep: it prunes nl to the channels listed and those
// that influence them, and says which are frozen.
func keepChannels(nl *circuit.Netlist, list string, info io.Writer) (*circuit.Netlist, error) {
	var keep []int
	for _, f := range strings.Split(list, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("-keep %s: want channel numbers separated by commas, such as 0,2", list)
		}
		keep = append(keep, k)
	}
	pruned, kept, err := circuit.KeepChannels(nl, keep)
	if err != nil {
		return nil, fmt.Errorf("-keep %s: %w", list, err)
	}
	frozen := nl.Channels() - len(kept)
	fmt.Fprintf(info, "-keep %s: channels %v kept (they and what influences them), the other %d frozen\n", list, kept, frozen)
	return pruned, nil
}
