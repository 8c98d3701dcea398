package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/experiments"
	"github.com/dlca/dlca/web"
)

// runExport writes a saved model's hard circuit as Verilog, C, DigitalJS,
// Graphviz DOT, netlist JSON or a self-contained HTML page that runs it,
// simplified unless -simplify=false.
func runExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("dlca export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	model := fs.String("model", "", "model file (required, except for html-train)")
	format := fs.String("format", "verilog", "verilog, c, digitaljs, dot, json, html (a page that runs the circuit in a browser) or html-train (a page that trains -experiment in the browser); see docs/web.md")
	out := fs.String("o", "", "output file (required; written atomically; - for standard output)")
	name := fs.String("name", "rule", "module, function and graph name (an identifier)")
	simplify := fs.Bool("simplify", true, "simplify the circuit first and print the gate counts per network")
	experiment := fs.String("experiment", "", "with -format html: the experiment whose initial states and target the page offers (default: random states, no target); with html-train: the experiment to train (required)")
	seed := fs.Uint64("seed", 23, "with -format html: seed of the initial states and of the page's random states and fire masks; with html-train: the training's seed")
	iterations := fs.Int("iterations", 0, "with -format html-train: iterations (0 = the experiment's)")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if *format == "html-train" {
		return exportTrainPage(ctx, *experiment, *iterations, *seed, *out, stdout, stderr)
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
	html := *format == "html"
	var f circuit.Format
	if !html {
		var err error
		if f, err = circuit.ParseFormat(*format); err != nil {
			return fmt.Errorf("unknown export format %q (want verilog, c, digitaljs, dot, json, html or html-train)", *format)
		}
	} else if *experiment != "" {
		if _, err := experiments.Get(*experiment); err != nil {
			return err
		}
	}
	m, err := dlca.Load(*model)
	if err != nil {
		return err
	}
	nl := m.Netlist()
	if *simplify {
		var report circuit.Report
		nl, report = circuit.Simplify(nl)
		fmt.Fprint(info, report)
	}
	// On an error (a -name that is no identifier, say) or an interrupt,
	// writeOutput removes its temporary file: nothing is left behind.
	write := func(w io.Writer) error { return circuit.Write(w, nl, f, *name) }
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
	fmt.Fprintf(info, "wrote %s (%d gates, %v)\n", *out, len(nl.Gates), *format)
	return nil
}
