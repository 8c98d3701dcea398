package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/experiments"
)

// runConfig prints an experiment as an experiment file (docs/config.md):
// a built-in one, a file with -set changes applied, or the one a model was
// trained by.
func runConfig(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("dlca config", flag.ContinueOnError)
	fs.SetOutput(stderr)
	name := fs.String("experiment", "", "print this experiment: built-in (dlca list shows them) or an experiment file")
	file := fs.String("config", "", "print this experiment file, resolved (with -set changes)")
	model := fs.String("model", "", "print the experiment this model file was trained by")
	var sets setFlags
	fs.Var(&sets, "set", "change one setting, key=value (repeatable; e.g. -set lr=0.03)")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	var cfg *experiments.Config
	var err error
	switch given := btoi(*name != "") + btoi(*file != "") + btoi(*model != ""); {
	case given != 1:
		return fmt.Errorf("give one of -experiment NAME, -config FILE or -model FILE")
	case *model != "":
		cfg, err = modelConfig(*model)
		if err == nil {
			err = applySets(cfg, sets)
		}
	default:
		cfg, err = experimentConfig(*name, *file, sets)
	}
	if err != nil {
		return err
	}
	if _, err := cfg.Resolve(); err != nil {
		return err
	}
	return cfg.WriteTOML(stdout)
}

// modelConfig returns the experiment the model file at path records.
func modelConfig(path string) (*experiments.Config, error) {
	m, err := dlca.Load(path)
	if err != nil {
		return nil, err
	}
	if m.Experiment == nil {
		return nil, fmt.Errorf("%s records no experiment (a model trained before dlca recorded them); print its experiment with -experiment NAME", path)
	}
	return experiments.FromRecord(m.Experiment, path)
}

// experimentConfig returns the configuration of the experiment file file,
// or when file is "" of the experiment name (built-in, or a file:
// experiments.Lookup), with sets applied. It does not resolve it.
func experimentConfig(name, file string, sets []string) (*experiments.Config, error) {
	var cfg *experiments.Config
	var err error
	if file != "" {
		cfg, err = experiments.Load(file)
	} else {
		cfg, err = experiments.Lookup(name)
	}
	if err != nil {
		return nil, err
	}
	return cfg, applySets(cfg, sets)
}

// applySets applies -set key=value settings in order.
func applySets(cfg *experiments.Config, sets []string) error {
	for _, s := range sets {
		key, value, ok := strings.Cut(s, "=")
		if !ok {
			return fmt.Errorf("-set %q: want key=value, e.g. -set lr=0.03", s)
		}
		if err := cfg.Set(key, value); err != nil {
			return err
		}
	}
	return nil
}

// setFlags collects the values of a repeatable -set flag.
type setFlags []string

func (s *setFlags) String() string { return strings.Join(*s, " ") }

func (s *setFlags) Set(v string) error {
	*s = append(*s, v)
	return nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
