package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/dlca"
)

// runExport writes a saved model's hard circuit as Verilog, C, DigitalJS,
// Graphviz DOT or netlist JSON, simplified unless -simplify=false.
func runExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("dlca export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	model := fs.String("model", "", "model file (required)")
	format := fs.String("format", "verilog", "verilog, c, digitaljs, dot or json")
	out := fs.String("o", "", "output file (required; written atomically; - for standard output)")
	name := fs.String("name", "rule", "module, function and graph name (an identifier)")
	simplify := fs.Bool("simplify", true, "simplify the circuit first and print the gate counts per network")
	if err := parseFlags(fs, args); err != nil {
		return err
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
	f, err := circuit.ParseFormat(*format)
	if err != nil {
		return err
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
	if err := writeOutput(ctx, *out, func(w io.Writer) error { return circuit.Write(w, nl, f, *name) }); err != nil {
		return err
	}
	fmt.Fprintf(info, "wrote %s (%d gates, %v)\n", *out, len(nl.Gates), f)
	return nil
}
