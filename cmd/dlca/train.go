package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/experiments"
	"github.com/dlca/dlca/gpu"
	"github.com/dlca/dlca/internal/safefile"
)

// runRecord is what train saves next to the model (run.json): enough to
// regenerate docs/RESULTS.md without training again.
type runRecord struct {
	Experiment  string                    `json:"experiment"`
	Seed        uint64                    `json:"seed"`
	WiringSeed  uint64                    `json:"wiring_seed"`
	Iterations  int                       `json:"iterations"`
	Device      string                    `json:"device"`
	Machine     string                    `json:"machine,omitempty"` // where it ran (machineDescription)
	WallSeconds float64                   `json:"wall_seconds"`      // of the whole run, iterations done before a -resume included
	FirstHard0  int                       `json:"first_hard_zero"`   // iteration where the hard loss first hit 0 (0 = never)
	Final       bptt.Metrics              `json:"final"`
	Metrics     []bptt.Metrics            `json:"metrics"`
	Checks      []experiments.CheckResult `json:"checks"`
}

func runTrain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("dlca train", flag.ContinueOnError)
	fs.SetOutput(stderr)
	name := fs.String("experiment", "checkerboard", "experiment to train (dlca list shows them)")
	out := fs.String("out", "", "output directory (created if missing; required)")
	iters := fs.Int("iterations", 0, "training iterations (0 = the paper's)")
	seed := fs.Uint64("seed", 23, "seed of the batches")
	wiring := fs.Uint64("wiring-seed", 23, "seed of the wiring")
	device := fs.String("device", "cpu", "where to train: "+gpu.Devices+" (auto: a hardware GPU if there is one, else the CPU)")
	quiet := fs.Bool("quiet", false, "no progress output")
	var long bptt.LongRun // checkpoints, -resume, -max-memory, -recompute (bptt/checkpoint_cmd.go)
	long.AddFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return fmt.Errorf("-out is required: the directory to write the model and pictures into")
	}
	if *iters < 0 {
		return fmt.Errorf("-iterations %d: must not be negative", *iters)
	}
	e, err := experiments.Get(*name)
	if err != nil {
		return err
	}
	if *iters > 0 {
		e.Iterations = *iters
	}
	e.Seed = *seed
	e.Model.Seed = *wiring
	resumed, err := long.Resumed(e.Model)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return fmt.Errorf("cannot create the output directory: %w", err)
	}
	if err := bptt.CheckWritable(*out); err != nil {
		return err
	}
	m, err := dlca.New(e.Model, autograd.Float32)
	if err != nil {
		return err
	}
	if resumed != nil {
		m = resumed.Model
		if *iters == 0 {
			e.Iterations = resumed.Iterations
		}
	}
	// NOTE: the engine keeps every step's activations (about 200 MB for the
	// checkerboard) for the whole run, and each iteration's garbage is small
	// next to them; the default GOGC of 100 would let the heap grow to twice
	// the live size before collecting.
	debug.SetGCPercent(25)
	setup := e.Setup(m)
	if err := long.Prepare(&setup, e.Model.Height, e.Model.Width); err != nil {
		return err
	}
	eng, chosen, err := gpu.SelectEngine(*device, setup, stderr)
	if err != nil {
		return err
	}
	defer eng.Close()
	var obs []bptt.Observer
	if !*quiet {
		obs = append(obs, bptt.Progress(stderr, isTerminal(stderr)))
	}
	start := time.Now()
	run := e.Run(obs...)
	stopCheckpoints, err := long.Start(*out, e.Name, eng, &run, resumed, stderr)
	if err != nil {
		return err
	}
	defer stopCheckpoints()
	metrics, trained, err := bptt.Train(ctx, eng, setup, run)
	if err != nil {
		return long.Stopped(err, fmt.Sprintf("dlca train -experiment %s -seed %d -out %s", e.Name, *seed, *out))
	}
	metrics = long.Metrics(metrics)
	rec := runRecord{Experiment: e.Name, Seed: *seed, WiringSeed: *wiring, Iterations: e.Iterations, Device: chosen, Machine: machineDescription(),
		WallSeconds: time.Since(start).Seconds() + timeBefore(resumed), Metrics: metrics}
	for _, m := range metrics {
		if m.HardLoss == 0 && rec.FirstHard0 == 0 {
			rec.FirstHard0 = m.Iteration
		}
	}
	if len(metrics) > 0 {
		rec.Final = metrics[len(metrics)-1]
	}
	if err := trained.Save(filepath.Join(*out, "model.json")); err != nil {
		return err
	}
	rec.Checks = experiments.RunChecks(e, trained)
	if err := writeOutputs(*out, e, trained, &rec); err != nil {
		return err
	}
	firstZero := "never 0"
	if rec.FirstHard0 > 0 {
		firstZero = fmt.Sprintf("first 0 at iteration %d", rec.FirstHard0)
	}
	fmt.Fprintf(stdout, "trained %s in %.1fs: soft loss %.3f, hard loss %.0f, %d active gates; hard loss %s\n",
		e.Name, rec.WallSeconds, rec.Final.SoftLoss, rec.Final.HardLoss, rec.Final.ActiveGates, firstZero)
	for _, c := range rec.Checks {
		fmt.Fprintf(stdout, "check %-16s %s  %s\n", c.Name, passFail(c.Passed), c.Detail)
	}
	fmt.Fprintf(stdout, "wrote %s\n", *out)
	return nil
}

// timeBefore is the training time, in seconds, of the iterations a resumed
// run had done before this process took over (0 without a resume), so that
// a run's wall time covers all of its iterations.
func timeBefore(c *bptt.Checkpoint) float64 {
	if c == nil {
		return 0
	}
	return iterationSeconds(c.Metrics)
}

// iterationSeconds is the sum of the iterations' own times, in seconds.
func iterationSeconds(metrics []bptt.Metrics) float64 {
	var d time.Duration
	for _, m := range metrics {
		d += m.Time
	}
	return d.Seconds()
}

func passFail(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// writeJSON writes v as indented JSON to path atomically.
func writeJSON(path string, v any) error {
	return safefile.Write(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", " ")
		return enc.Encode(v)
	})
}

// writeOutputs writes run.json, the loss curve, the hard rollout on the
// training grid and one animation per check into dir.
func writeOutputs(dir string, e *experiments.Experiment, m *dlca.Model, rec *runRecord) error {
	if err := writeJSON(filepath.Join(dir, "run.json"), rec); err != nil {
		return err
	}
	title := fmt.Sprintf("%s, seed %d, wiring seed %d", e.Name, rec.Seed, rec.WiringSeed)
	if err := saveLossPlot(filepath.Join(dir, "loss.png"), title, rec.Metrics); err != nil {
		return err
	}
	train := experiments.Rollout(e, m, e.Model.Height, e.Steps, 0, 0)
	if err := saveBitsGIF(filepath.Join(dir, "rollout.gif"), train, paintOptions(e, 16)); err != nil {
		return err
	}
	for _, c := range rec.Checks {
		if c.Frames != nil {
			if err := saveBitsGIF(filepath.Join(dir, c.Name+".gif"), c.Frames, paintOptions(e, 4)); err != nil {
				return err
			}
		}
		if c.Curve != nil {
			if err := experiments.PlotCurve(filepath.Join(dir, c.Name+".png"), e.Name+": "+c.Name, "error (wrong cells)", c.Curve); err != nil {
				return err
			}
		}
	}
	return nil
}

// machineDescription names the machine a run trained on: the CPU model (from
// /proc/cpuinfo where there is one), the number of CPUs and the platform.
func machineDescription() string {
	desc := fmt.Sprintf("%d CPUs, %s/%s", runtime.NumCPU(), runtime.GOOS, runtime.GOARCH)
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return desc
	}
	for line := range strings.Lines(string(b)) {
		if name, ok := strings.CutPrefix(line, "model name"); ok {
			return strings.TrimSpace(strings.TrimLeft(name, " \t:")) + ", " + desc
		}
	}
	return desc
}
