package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/dlca/dlca/cmd/internal/sweep"
	"github.com/dlca/dlca/internal/safefile"
)

func runSweep(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("dlca sweep", flag.ContinueOnError)
	fs.SetOutput(stderr)
	file := fs.String("config", "", "the sweep file (docs/sweeps.md)")
	out := fs.String("out", "", "the sweep's folder: plan.json, runs/NAME/, logs/, results.md")
	status := fs.String("status", "", "show where the runs of the sweep in this folder stand and write its results.md, instead of running")
	jobs := fs.Int("jobs", 0, "trainings at a time on this machine (0: one per CPU, each with its share of GOMAXPROCS)")
	device := fs.String("device", "cpu", "where each run trains: "+devices)
	emit := fs.String("emit", "", "write a batch script instead of running here: slurm (a job array, DIR/sweep.sbatch)")
	submit := fs.Bool("submit", false, "with -emit slurm: submit the script with sbatch and print the job id")
	var sl sweep.Slurm
	fs.StringVar(&sl.Dlca, "dlca", "", "the dlca executable each run calls; with -emit slurm, as the cluster's nodes see it (default: this one)")
	fs.StringVar(&sl.Time, "time", "4:00:00", "with -emit slurm: time limit of each run (sbatch --time)")
	fs.StringVar(&sl.Mem, "mem", "4G", "with -emit slurm: memory of each run (sbatch --mem)")
	fs.IntVar(&sl.CPUs, "cpus", 1, "with -emit slurm: CPUs of each run (sbatch --cpus-per-task; also its GOMAXPROCS)")
	fs.StringVar(&sl.Partition, "partition", "", "with -emit slurm: the partition (sbatch --partition; default: the cluster's)")
	fs.StringVar(&sl.Account, "account", "", "with -emit slurm: the account to charge (sbatch --account)")
	fs.StringVar(&sl.Gres, "gres", "", "with -emit slurm: generic resources of each run (sbatch --gres; default gpu:1 with -device gpu)")
	fs.StringVar(&sl.Name, "job-name", "", "with -emit slurm: the job's name (default: dlca- and the folder's name)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: dlca sweep -config SWEEP.toml -out DIR [-jobs N]       train every run here
       dlca sweep -config SWEEP.toml -out DIR -emit slurm [-submit] [-time T -mem M -cpus N -partition P -account A]
       dlca sweep -status DIR                                    where the runs stand; writes DIR/results.md

Running the same command again skips finished runs and resumes interrupted ones.
See docs/sweeps.md.
`)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if *status != "" {
		return sweepStatus(ctx, *status, stdout, stderr)
	}
	switch {
	case *file == "":
		return errors.New("-config is required: the sweep file (docs/sweeps.md shows one)")
	case *out == "":
		return errors.New("-out is required: the sweep's folder")
	case *emit != "" && *emit != "slurm":
		return fmt.Errorf("-emit %s: unknown; the one batch system is slurm", *emit)
	case *submit && *emit == "":
		return errors.New("-submit needs -emit slurm")
	case *jobs < 0:
		return fmt.Errorf("-jobs %d: must not be negative (0: one per CPU)", *jobs)
	case sl.CPUs < 1:
		return fmt.Errorf("-cpus %d: must be at least 1", sl.CPUs)
	}
	if !slices.Contains(strings.Split(devices, "|"), *device) {
		return fmt.Errorf("-device %q: unknown device (use %s)", *device, devices)
	}
	f, err := sweep.Load(*file)
	if err != nil {
		return err
	}
	// Planning resolves every run (up to 100,000): Ctrl-C stops it
	// between runs, before the plan is written.
	plan, err := f.Expand(func(experiment, file string, set []sweep.Setting) (any, error) {
		if err := interrupted(ctx); err != nil {
			return nil, err
		}
		return resolveRun(experiment, file, set)
	})
	if ctx.Err() != nil {
		return errInterrupted
	}
	if err != nil {
		return err
	}
	dir, err := filepath.Abs(*out)
	if err != nil {
		return err
	}
	if err := sweep.WritePlan(dir, plan); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (%d runs)\n", filepath.Join(dir, sweep.PlanName), len(plan.Runs))
	if *emit == "slurm" {
		sl.Device = *device
		return emitSlurm(ctx, sl, dir, plan, *submit, stdout)
	}
	self := sl.Dlca
	if self == "" {
		if self, err = os.Executable(); err != nil {
			return fmt.Errorf("cannot find the dlca executable to run the trainings: %w; name it with -dlca", err)
		}
	}
	local := sweep.Local{Dlca: self, Jobs: *jobs, Device: *device, Out: stderr, TTY: isTerminal(stderr)}
	runErr := local.Run(ctx, dir, plan)
	if ctx.Err() == nil {
		if err := collect(ctx, dir, plan, stdout, stderr); err != nil && runErr == nil {
			runErr = err
		}
	}
	return runErr
}

// resolveRun is the sweep's resolver: a run's whole configuration, as
// dlca train makes it from the base and the run's settings (-set), checked
// the way dlca train checks it before training.
func resolveRun(experiment, file string, set []sweep.Setting) (any, error) {
	var sets []string
	for _, s := range set {
		sets = append(sets, s.String())
	}
	cfg, err := experimentConfig(experiment, file, sets)
	if err != nil {
		return nil, err
	}
	if _, err := cfg.Resolve(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// emitSlurm writes the sweep's sbatch script and, with submit, submits it.
func emitSlurm(ctx context.Context, sl sweep.Slurm, dir string, plan *sweep.Plan, submit bool, stdout io.Writer) error {
	if sl.Dlca == "" {
		self, err := os.Executable()
		if err != nil {
			return fmt.Errorf("cannot find the dlca executable: %w; name it with -dlca", err)
		}
		if strings.Contains(self, "go-build") {
			return fmt.Errorf("this dlca (%s) is a temporary build of go run, gone when it exits: build one (go build -o bin/dlca ./cmd/dlca) and run that, or name it with -dlca", self)
		}
		sl.Dlca = self
	}
	if sl.Name == "" {
		sl.Name = "dlca-" + filepath.Base(dir)
	}
	// Slurm opens each task's output file in logs/ before the task runs.
	if err := os.MkdirAll(filepath.Join(dir, sweep.LogsDir), 0o755); err != nil {
		return fmt.Errorf("cannot create the logs folder: %w", err)
	}
	script := filepath.Join(dir, sweep.ScriptName)
	if err := safefile.Write(script, func(w io.Writer) error { return sl.WriteScript(w, dir, plan) }); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (a job array of %d tasks)\n", script, len(plan.Runs))
	if !submit {
		fmt.Fprintf(stdout, "submit it with: sbatch %s\n", script)
		return nil
	}
	var errs bytes.Buffer
	cmd := exec.CommandContext(ctx, "sbatch", "--parsable", script)
	cmd.Stderr = &errs
	b, err := cmd.Output()
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return fmt.Errorf("sbatch not found: run this on a machine of the Slurm cluster, or submit %s there with sbatch", script)
		}
		return fmt.Errorf("sbatch %s: %v: %s", script, err, strings.TrimSpace(errs.String()))
	}
	job, _, _ := strings.Cut(strings.TrimSpace(string(b)), ";") // "JOBID[;CLUSTER]"
	fmt.Fprintf(stdout, "submitted job %s (array of %d tasks)\nfollow it with: squeue -j %s\ncollect it with: dlca sweep -status %s\n", job, len(plan.Runs), job, dir)
	return nil
}

// sweepStatus prints where the runs of the sweep in dir stand and writes
// its results page.
func sweepStatus(ctx context.Context, dir string, stdout, stderr io.Writer) error {
	plan, err := sweep.ReadPlan(dir)
	if err != nil {
		return err
	}
	if err := sweep.WriteStatus(stdout, sweep.Status(dir, plan)); err != nil {
		return err
	}
	return collect(ctx, dir, plan, stdout, stderr)
}

// collect writes dir/results.md, the results page of the sweep's finished
// runs, when there are any.
func collect(ctx context.Context, dir string, plan *sweep.Plan, stdout, stderr io.Writer) error {
	if sweep.Count(sweep.Status(dir, plan))[sweep.Finished] == 0 {
		fmt.Fprintln(stdout, "no run has finished: no results page yet")
		return nil
	}
	// The counts are said already: results need not say them again.
	return runResults(ctx, []string{"-force", "-out", filepath.Join(dir, "results.md"), dir}, stdout, io.Discard)
}

// sweepRuns returns the folders of the finished runs of the sweep in dir
// and a line that counts its runs by state; ok is false when dir is not a
// sweep's folder.
func sweepRuns(dir string) (dirs []string, summary string, ok bool, err error) {
	plan, err := sweep.ReadPlan(dir)
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, "", false, nil // not a sweep: a run's folder, or no folder at all
	}
	if err != nil {
		return nil, "", true, err
	}
	runs := sweep.Status(dir, plan)
	for _, r := range runs {
		if r.State == sweep.Finished {
			dirs = append(dirs, r.Dir)
		}
	}
	return dirs, fmt.Sprintf("sweep %s: %s", dir, sweep.Summary(runs)), true, nil
}
