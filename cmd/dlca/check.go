package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/experiments"
	"github.com/dlca/dlca/internal/memlimit"
)

func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("dlca check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	model := fs.String("model", "", "model file (required)")
	name := fs.String("experiment", "", "experiment whose checks to run, built-in or an experiment file (default: the experiment the model records, else checkerboard)")
	gifs := fs.String("gifs", "", "directory to write one animation per check into (NAME.gif, and its last frame as NAME-final.png)")
	maxMemory := fs.String("max-memory", "", "refuse to run a check whose estimated memory exceeds this (e.g. 2GiB; default: the available memory, or the room under the container's limit if less)")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	switch {
	case *model == "":
		return fmt.Errorf("-model is required: the model file to check")
	}
	e, m, err := loadModel(*model, *name)
	if err != nil {
		return err
	}
	if err := checkChecksMemory(e, *maxMemory, "the experiment's"); err != nil {
		return err
	}
	e.Stop = func() bool { return ctx.Err() != nil }
	if *gifs != "" {
		for _, c := range e.Checks {
			for _, out := range []string{checkGIF(*gifs, c.Name), finalPNG(checkGIF(*gifs, c.Name))} {
				if err := checkOutput("-gifs", out, "model file", *model); err != nil {
					return err
				}
			}
		}
	}
	failed := 0
	for _, check := range e.Checks {
		if err := interrupted(ctx); err != nil {
			return err
		}
		c := check.Run(e, m)
		if err := interrupted(ctx); err != nil { // the check stopped early: no result
			return err
		}
		fmt.Fprintf(stdout, "check %-16s %s  %s\n", c.Name, passFail(c.Passed), c.Detail)
		if !c.Passed {
			failed++
		}
		if *gifs != "" && c.Frames != nil {
			// NOTE: the directory is made when the first animation is ready,
			// so a refused or interrupted check leaves no empty one.
			if err := os.MkdirAll(*gifs, 0o755); err != nil {
				return fmt.Errorf("cannot create the -gifs directory: %w", err)
			}
			if err := saveBitsGIF(checkGIF(*gifs, c.Name), e, c.Frames, paintOptions(e, 4)); err != nil {
				return err
			}
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d checks failed", failed, len(e.Checks))
	}
	return nil
}

// checkChecksMemory refuses, before anything is allocated, an experiment
// whose largest check (they run one after another) needs more memory than
// maxMemory or what this process may take (memlimit.Check); where says where
// the checks are set, for the message.
func checkChecksMemory(e *experiments.Experiment, maxMemory, where string) error {
	c, need, ok := e.LargestCheck()
	if !ok {
		return nil
	}
	return memlimit.Check(maxMemory, func(limit int64, source string) error {
		if need <= limit {
			return nil
		}
		return fmt.Errorf("check %s (%s) needs about %s but %s is %s: make the check's grid smaller (%s size; a check keeps at most %d of its states, so its steps cost little), free some memory, or raise -max-memory if the limit is wrong",
			c.Name, c.Description, memlimit.FormatBytes(need), source, memlimit.FormatBytes(limit), where, experiments.MaxCheckFrames)
	})
}

// checkGIF is the path of check name's animation in directory dir.
func checkGIF(dir, name string) string {
	return filepath.Join(dir, name+".gif")
}

// loadModel loads a model file and the experiment it is to be run as,
// checking that they fit together: the experiment named (built-in or a
// file), or when experiment is "" the one the model records (dlca train
// records it), else the checkerboard (experiments.ForModel).
func loadModel(path, experiment string) (*experiments.Experiment, *dlca.Model, error) {
	if experiment != "" {
		if _, err := experiments.Lookup(experiment); err != nil { // before reading a large model
			return nil, nil, err
		}
	}
	m, err := dlca.Load(path)
	if err != nil {
		return nil, nil, err
	}
	e, err := experiments.ForModel(m, path, experiment, "checkerboard")
	if err != nil {
		return nil, nil, err
	}
	return e, m, nil
}
