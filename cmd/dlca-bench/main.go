// Command dlca-bench times training iterations of the CPU and GPU engines
// side by side on the same configuration (by default the paper's
// checkerboard: 16x16, batch 2, 20 steps) and prints milliseconds per
// iteration, then times single autograd ops on both (-ops: a 1024³ matrix
// product, a CNN layer's 3×3 convolution and an Adam step of a 784-128-10
// MLP) with their GFLOP/s and, on the GPU, their kernel dispatches and
// command submissions. Timings on a
// software adapter such as lavapipe say nothing about a GPU; the command
// says so when it runs on one. docs/gpu.md explains the setup.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/cmd/internal/runctl"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/experiments"
	"github.com/dlca/dlca/gpu"
	"github.com/dlca/dlca/internal/memlimit"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// options are the command's flags.
type options struct {
	experiment         string
	height, width      int
	batch, steps       int
	iterations, warmup int
	engines            string
	seed               uint64
	ops                string // per-op rows: matmul, conv2d, mlp, none
	matmul             int    // n of the n×n×n product
	convBatch          int    // images of the convolution
	convSize           int    // their height and width
}

func run(args []string, stdout, stderr io.Writer) int {
	var o options
	fs := flag.NewFlagSet("dlca-bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.experiment, "experiment", "checkerboard", "experiment whose configuration is timed")
	fs.IntVar(&o.height, "height", 0, "grid height (0 = the experiment's)")
	fs.IntVar(&o.width, "width", 0, "grid width (0 = the experiment's)")
	fs.IntVar(&o.batch, "batch", 0, "initial states per iteration (0 = the experiment's)")
	fs.IntVar(&o.steps, "steps", 0, "steps per rollout (0 = the experiment's)")
	fs.IntVar(&o.iterations, "iterations", 5, "timed iterations per engine")
	fs.IntVar(&o.warmup, "warmup", 1, "untimed iterations first (buffer allocation, shader compilation)")
	fs.StringVar(&o.engines, "engines", "cpu,gpu,graph", "comma-separated engines to time: cpu, gpu (the recorded CA engine), graph (the captured autograd step, package gputrain)")
	fs.Uint64Var(&o.seed, "seed", 23, "seed of the batches")
	fs.StringVar(&o.ops, "ops", "matmul,conv2d,mlp", "comma-separated autograd ops to time on each engine's device, or none: matmul, conv2d, mlp (an Adam step of a 784-128-10 MLP)")
	fs.IntVar(&o.matmul, "matmul", 1024, "n of the timed n x n x n matrix product")
	fs.IntVar(&o.convBatch, "conv-batch", 32, "images of the timed convolution (64 to 64 channels, 3x3, padding 1)")
	fs.IntVar(&o.convSize, "conv-size", 32, "height and width of the timed convolution's images")
	if err := runctl.ParseFlags(fs, args, stdout); errors.Is(err, flag.ErrHelp) {
		return 0
	} else if err != nil {
		return 2
	}
	if fs.NArg() > 0 || o.iterations < 1 || o.warmup < 0 {
		fmt.Fprintln(stderr, "dlca-bench: flags only; -iterations must be at least 1 and -warmup at least 0")
		return 2
	}
	if o.matmul < 1 || o.convBatch < 1 || o.convSize < 1 {
		fmt.Fprintln(stderr, "dlca-bench: -matmul, -conv-batch and -conv-size must be at least 1")
		return 2
	}
	if o.height < 0 || o.width < 0 || o.batch < 0 || o.steps < 0 {
		fmt.Fprintln(stderr, "dlca-bench: -height, -width, -batch and -steps must not be negative (0 = the experiment's)")
		return 2
	}
	if err := bench(o, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "dlca-bench: %v\n", err)
		return 1
	}
	return 0
}

// bench times each engine and prints the table.
func bench(o options, stdout, stderr io.Writer) error {
	e, err := experiments.Get(o.experiment)
	if err != nil {
		return err
	}
	for _, f := range []struct {
		dst *int
		v   int
	}{
		{&e.Model.Height, o.height}, {&e.Model.Width, o.width}, {&e.Batch, o.batch}, {&e.Steps, o.steps},
	} {
		if f.v != 0 {
			*f.dst = f.v
		}
	}
	ops, err := opBenches(o.ops, o.matmul, o.convBatch, o.convSize, o.seed) // ops.go
	if err != nil {
		return err
	}
	m, err := dlca.New(e.Model, autograd.Float32)
	if err != nil {
		return err
	}
	setup := e.Setup(m)
	if strings.Contains(o.engines, "cpu") {
		if err := checkMemory(setup, e.Model.Height, e.Model.Width); err != nil { // memory.go
			return err
		}
	}
	fmt.Fprintf(stdout, "configuration: %s, %dx%d grid, batch %d, %d steps, %d gates (each kernel once), %d timed iterations after %d warm-up\n",
		e.Name, e.Model.Height, e.Model.Width, e.Batch, e.Steps, m.NumGates(), o.iterations, o.warmup)
	var failed []string
	results := map[string]string{}
	names := strings.Split(o.engines, ",")
	for _, name := range names {
		ms, err := timeEngine(name, setup, e, o, stdout)
		if err != nil {
			// The GPU's messages suggest dlca train's -device cpu; here
			// the CPU is timed by -engines cpu.
			msg := strings.ReplaceAll(err.Error(), "train with -device cpu", "time the CPU engine alone with -engines cpu")
			failed = append(failed, name+": "+msg)
			results[name] = "failed: " + msg
			continue
		}
		results[name] = fmt.Sprintf("%.1f", ms)
	}
	fmt.Fprintf(stdout, "%-6s %s\n", "engine", "ms/iteration")
	for _, name := range names {
		fmt.Fprintf(stdout, "%-6s %s\n", name, results[name])
	}
	if len(failed) > 0 {
		return fmt.Errorf("engine(s) failed: %s", strings.Join(failed, "; "))
	}
	return benchOps(ops, o.engines, o, stdout)
}

// timeEngine returns the mean milliseconds per iteration of one engine.
func timeEngine(name string, setup bptt.Setup, e *experiments.Experiment, o options, stdout io.Writer) (float64, error) {
	var eng bptt.Engine
	var err error
	switch name {
	case "cpu":
		eng, err = bptt.NewCPU(setup)
	case "gpu":
		var d *gpu.Device
		if d, err = gpu.Open(); err != nil {
			return 0, err
		}
		defer d.Close()
		fmt.Fprintf(stdout, "gpu device: %s\n", d)
		if d.IsSoftware() {
			fmt.Fprintln(stdout, "gpu device is a software (CPU) adapter: its timings say nothing about a GPU")
		}
		opts := gpu.Options{Device: d}
		if d.IsSoftware() {
			// A software adapter's buffers are this machine's memory.
			if limit, _, lerr := memlimit.MemoryLimit(); lerr == nil {
				opts.MemoryLimit = limit
			}
		}
		eng, err = gpu.NewEngine(setup, opts)
	case "graph":
		var closeDev func()
		eng, closeDev, err = graphEngine(setup, stdout) // graph.go
		if closeDev != nil {
			defer closeDev()
		}
	default:
		return 0, errors.New("unknown engine (use cpu, gpu or graph)")
	}
	if err != nil {
		return 0, err
	}
	defer eng.Close()
	src := e.Source()
	rng := rand.New(rand.NewPCG(o.seed, 1))
	if c, ok := eng.(*bptt.CPUEngine); ok {
		// The CPU engine times one thread against GOMAXPROCS over its
		// first iterations: let it choose before anything is timed.
		for c.Workers() == 0 {
			if _, err := c.Iterate(src(rng)); err != nil {
				return 0, err
			}
		}
		fmt.Fprintf(stdout, "cpu engine: %d thread(s) per step, its choice of 1 or GOMAXPROCS (%d)\n", c.Workers(), runtime.GOMAXPROCS(0))
	}
	warmup := o.warmup
	if name == "graph" {
		warmup = max(warmup, 2) // the eager warm-up and the capture
	}
	var total time.Duration
	for i := range warmup + o.iterations {
		b := src(rng)
		b.FireSeed = rng.Uint64()
		start := time.Now()
		if _, err := eng.Iterate(b); err != nil {
			return 0, err
		}
		if i >= warmup {
			total += time.Since(start)
		}
	}
	if g, ok := eng.(*gpu.Engine); ok {
		dispatches, submissions := g.Dispatches()
		fmt.Fprintf(stdout, "gpu engine: %d kernel dispatches in %d submissions per iteration\n", dispatches, submissions)
	}
	printGraphCounts(eng, stdout) // graph.go
	return float64(total.Microseconds()) / 1000 / float64(o.iterations), nil
}
