// Command dlca trains, evaluates and checks differentiable logic cellular
// automata. Run "dlca help" for the commands; docs/training.md is the guide.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/dlca/dlca/cmd/internal/runctl"
)

// command is one subcommand: its name, a one-line summary and its body,
// which parses its own flags from args.
type command struct {
	name, summary string
	run           func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

var commands = []command{
	{"train", "train an experiment and write the model, loss curve and animations", runTrain},
	{"eval", "run a saved model on a grid of any size and write an animation", runEval},
	{"check", "run an experiment's checks (generalisation, damage) on a saved model", runCheck},
	{"gap", "show where a saved model's circuit parts from its soft model (gate confidence, drift per step)", runGap},
	{"export", "write a saved model's circuit as Verilog, C, DigitalJS, DOT, JSON or a web page, or its parameters as NumPy arrays (npz)", runExport},
	{"import", "build a model file from parameters saved elsewhere (an npz in the paper's notebook's layout)", runImport},
	{"results", "write a results page (markdown: a row per run, summaries, a sweep's plots) from saved runs or sweeps", runResults},
	{"sweep", "train many runs from one sweep file, here or as a Slurm job array", runSweep},
	{"config", "print an experiment as an experiment file (a built-in one, a file with -set changes, a model's)", runConfig},
	{"list", "list the experiments", runList},
}

// errUsage marks an error already explained by a usage message.
var errUsage = errors.New("usage")

// parseFlags parses a command's flags, which are all it takes: a stray
// argument is an error (a forgotten "-model" before a path, say). -h prints
// the usage to stdout and returns flag.ErrHelp (exit status 0).
func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	if err := runctl.ParseFlags(fs, args, stdout); errors.Is(err, flag.ErrHelp) {
		return err
	} else if err != nil {
		return errUsage
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (flags only)", fs.Arg(0))
	}
	return nil
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run executes the command line args and returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		usage(stderr)
		return 2
	case args[0] == "help" || args[0] == "-h" || args[0] == "-help" || args[0] == "--help":
		usage(stdout)
		return 0
	}
	for _, c := range commands {
		if c.name == args[0] {
			err := c.run(ctx, args[1:], stdout, stderr)
			switch {
			case err == nil, errors.Is(err, flag.ErrHelp):
				return 0
			case errors.Is(err, errUsage):
				return 2
			default:
				// Errors of the dlca package start "dlca: " themselves
				// (dlca/doc.go); the command's name says it already.
				fmt.Fprintf(stderr, "dlca %s: %s\n", c.name, strings.TrimPrefix(err.Error(), "dlca: "))
				return 1
			}
		}
	}
	fmt.Fprintf(stderr, "dlca: unknown command %q\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: dlca <command> [flags]\n\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun \"dlca <command> -h\" for a command's flags.")
}
