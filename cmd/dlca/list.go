package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/dlca/dlca/experiments"
)

func runList(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("dlca list", flag.ContinueOnError)
	fs.SetOutput(stderr)
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	for _, n := range experiments.Names() {
		e, _ := experiments.Get(n)
		fmt.Fprintf(stdout, "%-20s %s\n", n, e.Description)
	}
	return nil
}
