package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/cmd/internal/runctl"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/experiments"
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
	DType       string                    `json:"dtype,omitempty"`   // "float64" for a -float64 run; float32 where none is recorded
	Machine     string                    `json:"machine,omitempty"` // where it ran (machineDescription)
	WallSeconds float64                   `json:"wall_seconds"`      // of the whole run, iterations done before a -resume included
	FirstHard0  int                       `json:"first_hard_zero"`   // iteration where the hard loss first hit 0 (0 = never)
	Final       bptt.Metrics              `json:"final"`
	Metrics     []bptt.Metrics            `json:"metrics"`
	Checks      []experiments.CheckResult `json:"checks"`
	// Config is the run's whole configuration (dlca config -model prints it
	// from the model file as an experiment file), its input files' paths
	// as Inputs gives them.
	Config *experiments.Config `json:"config,omitempty"`
	// Build is the code the run was trained by; Inputs are the files it
	// read, with their SHA-256 (provenance.go).
	Build  *buildRecord  `json:"build,omitempty"`
	Inputs []inputRecord `json:"inputs,omitempty"`
}

func runTrain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("dlca train", flag.ContinueOnError)
	fs.SetOutput(stderr)
	long := runctl.LongRun{Command: "dlca train"} // the run's settings, checkpoints, -resume, -force (cmd/internal/runctl)
	fs.StringVar(&long.Experiment, "experiment", "checkerboard", "experiment to train: built-in (dlca list shows them) or an experiment file, as -config")
	file := fs.String("config", "", "experiment file to train (TOML, docs/config.md; dlca config -experiment NAME prints one)")
	var sets setFlags
	fs.Var(&sets, "set", "change one setting of the experiment, key=value (repeatable; e.g. -set lr=0.03)")
	fs.StringVar(&long.Out, "out", "", "output directory (created if missing; required, but with -resume it defaults to the run's)")
	fs.IntVar(&long.Iterations, "iterations", 0, "training iterations (0 = the experiment's)")
	fs.Uint64Var(&long.Seed, "seed", 23, "seed of the batches (default: the experiment's)")
	fs.Uint64Var(&long.WiringSeed, "wiring-seed", 23, "seed of the wiring (default: the experiment's)")
	fs.String("rng", "pcg", "random stream of the wiring, batches and fire masks: pcg (this project's) or jax (the paper's notebook's, JAX 0.4.33); same as -set rng=...")
	fs.StringVar(&long.Device, "device", "cpu", "where to train: "+devices+" (auto: a hardware GPU if there is one, else the CPU)")
	quiet := fs.Bool("quiet", false, "no progress output")
	f64 := fs.Bool("float64", false, "train in float64 instead of float32 (CPU engine, slower; a check on rounding; the model file holds float32 logits either way)")
	strict := fs.Bool("strict-checks", false, "exit with status 1 when one of the experiment's checks fails, as dlca check does (without it, train exits 0 once the model is written, whatever the checks say)")
	layerStats := fs.Int("layer-stats", 0, "record each layer's gradient norm and undecided gates in run.json at iteration 1 and every K-th (0 = none; CPU engine)")
	long.AddFlags(fs)
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	long.Given(fs)
	resumed, err := long.Resumed()
	if err != nil {
		return err
	}
	switch {
	case long.Out == "" && resumed != nil:
		return fmt.Errorf("-out is required: checkpoint %s (format version 1) does not record its run's folder", long.Resume)
	case long.Out == "":
		return fmt.Errorf("-out is required: the directory to write the model and pictures into")
	}
	cfg, err := trainConfig(fs, &long, *file, sets, resumed)
	if err != nil {
		return err
	}
	e, err := cfg.Resolve()
	if err != nil {
		return err
	}
	// The inputs as they were read, before a long training.
	inputs, err := runInputs(cfg, *file, long.Out)
	if err != nil {
		return err
	}
	dtype := autograd.Float32
	if *f64 {
		dtype = autograd.Float64
	}
	if given := fs.Lookup("float64"); resumed != nil && given.Value.String() != given.DefValue && resumed.Model.DType() != dtype {
		return fmt.Errorf("-float64 contradicts the checkpoint %s, whose run trains in %s: leave it out to go on in %s", long.Resume, resumed.Model.DType(), resumed.Model.DType())
	}
	var obs []bptt.Observer
	if !*quiet {
		obs = append(obs, bptt.Progress(stderr, isTerminal(stderr)))
	}
	job := runctl.Job{
		Config: e.Model,
		New:    func() (*dlca.Model, error) { return dlca.New(e.Model, dtype) },
		Setup:  e.Setup,
		Run:    e.Run(obs...),
		Height: e.Model.Height, Width: e.Model.Width,
		SelectEngine: selectEngine,
		Check: func(*dlca.Model, bptt.Setup) error {
			return checkChecksMemory(e, long.MaxMemory, "-set checks")
		},
		Accept: func(eng bptt.Engine, chosen string) error {
			if err := checkLayerStats(*layerStats, eng, chosen); err != nil {
				return err
			}
			if dtype == autograd.Float64 && chosen != "cpu" {
				return fmt.Errorf("-float64: the %s engine trains in float32 only; train with -device cpu", chosen)
			}
			return nil
		},
	}
	job.Run.LayerStats = *layerStats
	l, err := long.Launch(job, resumed, stderr) // cmd/internal/runctl: the long-run sequence
	if err != nil {
		return err
	}
	defer l.Close()
	start := time.Now()
	m, chosen := l.Model, l.Device
	metrics, trained, err := bptt.Train(ctx, l.Engine, l.Setup, l.Run)
	if err != nil {
		return l.End(err)
	}
	out := long.Out
	metrics = long.Metrics(metrics)
	rec := runRecord{Experiment: e.Name, Seed: e.Seed, WiringSeed: e.Model.Seed, Iterations: e.Iterations, Device: chosen, Machine: machineDescription(),
		WallSeconds: time.Since(start).Seconds() + timeBefore(resumed), Metrics: metrics, Config: portableConfig(e.Config, *file, out)}
	build := thisBuild()
	rec.Build, rec.Inputs = &build, inputs
	if m.DType() == autograd.Float64 {
		rec.DType = "float64"
	}
	rec.FirstHard0 = firstHardZero(metrics)
	if len(metrics) > 0 {
		rec.Final = metrics[len(metrics)-1]
	}
	// The model records the experiment it was trained by.
	if err = e.Config.RecordIn(trained); err != nil {
		return err
	}
	// The model and the checkpoint first: what follows (checks, pictures)
	// can be interrupted without losing the training.
	if err := trained.Save(filepath.Join(out, "model.json")); err != nil {
		return err
	}
	if err := l.End(nil); err != nil {
		return err
	}
	if rec.Checks, err = runChecks(ctx, e, trained); err != nil {
		return afterTraining(err, &long)
	}
	if err := writeOutputs(ctx, out, e, trained, &rec); err != nil {
		return afterTraining(err, &long)
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
	fmt.Fprintf(stdout, "wrote %s\n", out)
	if *strict {
		return failedChecks(rec.Checks)
	}
	return nil
}

// failedChecks is -strict-checks' error when a check failed (the model
// and the run's files are written by then): how many, and which.
func failedChecks(checks []experiments.CheckResult) error {
	var failed []string
	for _, c := range checks {
		if !c.Passed {
			failed = append(failed, c.Name)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return fmt.Errorf("%d of %d checks failed (%s); -strict-checks makes that an error (the model and run.json are written)", len(failed), len(checks), strings.Join(failed, ", "))
}

// checkLayerStats refuses a -layer-stats K that is negative or that the
// chosen engine cannot record.
func checkLayerStats(k int, eng bptt.Engine, device string) error {
	if k < 0 {
		return fmt.Errorf("-layer-stats %d: must not be negative (0 records none, K records every K-th iteration)", k)
	}
	if _, ok := eng.(bptt.GradientEngine); k > 0 && !ok {
		return fmt.Errorf("-layer-stats: the %s engine does not hand out its gradients; train with -device cpu to record layer statistics", device)
	}
	return nil
}

// trainConfig returns the configuration dlca train trains: that of the
// experiment file, or of the built-in -experiment, with the -set changes,
// then the -seed, -wiring-seed and -iterations flags where given. With
// -resume it starts from the checkpoint's run: its recorded configuration
// unless -config or -experiment is given, its seeds and iterations; what
// comes out must be that run, but for more iterations. It sets long's
// Experiment (the run's label) and Config (what checkpoints record).
func trainConfig(fs *flag.FlagSet, long *runctl.LongRun, file string, sets []string, resumed *bptt.Checkpoint) (*experiments.Config, error) {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if file != "" && given["experiment"] {
		return nil, fmt.Errorf("give -config FILE or -experiment NAME, not both")
	}
	var recorded *experiments.Config
	if resumed != nil && runctl.RecordedConfig(resumed) != "" {
		var err error
		if recorded, err = experiments.Parse([]byte(runctl.RecordedConfig(resumed)), long.Resume); err != nil {
			return nil, err
		}
	}
	cfg := recorded
	if cfg == nil || file != "" || given["experiment"] {
		var err error
		if cfg, err = experimentConfig(long.Experiment, file, nil); err != nil {
			return nil, err
		}
	} else {
		cfg = cfg.Clone()
		if err := recordedInputsThere(cfg, long.Resume); err != nil {
			return nil, err
		}
	}
	if resumed != nil {
		// The run's (long.Resumed took them from the checkpoint).
		cfg.Seed, cfg.WiringSeed, cfg.Iterations = long.Seed, long.WiringSeed, long.Iterations
	}
	if err := applySets(cfg, sets); err != nil {
		return nil, err
	}
	if given["seed"] {
		cfg.Seed = long.Seed
	}
	if given["wiring-seed"] {
		cfg.WiringSeed = long.WiringSeed
	}
	if given["rng"] {
		// pcg is the default stream, which a configuration records by
		// leaving rng out (so the run's record reads as before -rng).
		if cfg.RNG = fs.Lookup("rng").Value.String(); cfg.RNG == dlca.StreamPCG {
			cfg.RNG = ""
		}
	}
	if given["iterations"] && long.Iterations > 0 {
		cfg.Iterations = long.Iterations
	}
	if recorded != nil && given["rng"] && cfg.RNG != recorded.RNG {
		return nil, fmt.Errorf("-rng %s contradicts checkpoint %s, whose run draws from the %s stream: leave -rng out to go on with it, or start a new run without -resume", fs.Lookup("rng").Value, long.Resume, streamName(recorded.RNG))
	}
	if recorded != nil {
		if err := sameRun(cfg, recorded, long.Resume); err != nil {
			return nil, err
		}
	}
	if resumed != nil && cfg.Name != resumed.Label {
		return nil, fmt.Errorf("the experiment is %q, but checkpoint %s is of %q: resume without -config and -experiment", cfg.Name, long.Resume, resumed.Label)
	}
	var text strings.Builder
	if err := cfg.WriteTOML(&text); err != nil {
		return nil, err
	}
	long.Experiment, long.Config = cfg.Name, text.String()
	long.Seed, long.WiringSeed, long.Iterations = cfg.Seed, cfg.WiringSeed, cfg.Iterations
	return cfg, nil
}

// recordedInputsThere checks that the input files a checkpoint's recorded
// configuration names (absolute paths, from where the run started) are
// there; where one is not, the run was moved, and the error says which
// file, where it looked, and how to go on.
func recordedInputsThere(cfg *experiments.Config, checkpoint string) error {
	for _, in := range []struct{ key, path string }{{"init.file", cfg.Init.File}, {"target.file", cfg.Target.File}} {
		if in.path == "" {
			continue
		}
		if _, err := os.Stat(in.path); err != nil {
			return fmt.Errorf("the run of checkpoint %s reads %s %s, which is not there (%v): if the run was moved with its experiment file, resume with -config FILE naming the experiment file where it is now (its %s is read relative to it)",
				checkpoint, in.key, in.path, err, in.key)
		}
	}
	return nil
}

// sameRun refuses a configuration cfg that differs from the one a
// checkpoint recorded in more than its iterations (a run may be trained
// further), naming the first setting that differs.
func sameRun(cfg, recorded *experiments.Config, checkpoint string) error {
	r := recorded.Clone()
	r.Iterations = cfg.Iterations
	// Input files are compared by name, not folder: a run moved with its
	// experiment file and pictures (to a cluster) resumes with -config
	// naming the file where it is now.
	for _, p := range [][2]*string{{&r.Init.File, &cfg.Init.File}, {&r.Target.File, &cfg.Target.File}} {
		if *p[0] != "" && *p[1] != "" && filepath.Base(*p[0]) == filepath.Base(*p[1]) {
			*p[0] = *p[1]
		}
	}
	var a, b strings.Builder
	if err := cfg.WriteTOML(&a); err != nil {
		return err
	}
	if err := r.WriteTOML(&b); err != nil {
		return err
	}
	// The settings (comments aside) each has that the other lacks: a
	// setting one of them leaves out shifts the lines, so they are not
	// compared in order.
	al, bl := settingLines(a.String()), settingLines(b.String())
	onlyGiven, onlyRun := minus(al, bl), minus(bl, al)
	if len(onlyGiven) == 0 && len(onlyRun) == 0 {
		return nil
	}
	describe := func(lines []string) string {
		if len(lines) == 0 {
			return "nothing there"
		}
		return strings.Join(lines, "; ")
	}
	return fmt.Errorf("the experiment given (%s) differs from the run of checkpoint %s (%s): leave out -config, -experiment, -set and -rng to go on with the run as it was started, or start a new run without -resume",
		describe(onlyGiven), checkpoint, describe(onlyRun))
}

// streamName names a configuration's random stream ("" is pcg).
func streamName(rng string) string {
	if rng == "" {
		return dlca.StreamPCG
	}
	return rng
}

// settingLines returns the lines of an experiment file that set
// something: not comments, not blank.
func settingLines(text string) []string {
	var out []string
	for line := range strings.Lines(text) {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return out
}

// minus returns the lines of a that b lacks (as many times as a has more).
func minus(a, b []string) []string {
	count := map[string]int{}
	for _, l := range b {
		count[l]++
	}
	var out []string
	for _, l := range a {
		if count[l] > 0 {
			count[l]--
			continue
		}
		out = append(out, l)
	}
	return out
}

// runChecks runs the experiment's checks on m, returning early with ctx's
// error when ctx is done (SIGINT): the checks compute only, so the one
// still running is left to the exiting process.
func runChecks(ctx context.Context, e *experiments.Experiment, m *dlca.Model) ([]experiments.CheckResult, error) {
	done := make(chan []experiments.CheckResult, 1)
	stopped := *e
	stopped.Stop = func() bool { return ctx.Err() != nil } // the checks end too, not only the wait
	go func() { done <- experiments.RunChecks(&stopped, m) }()
	select {
	case r := <-done:
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return r, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// afterTraining explains an error of the checks or pictures, which come
// after the model and the checkpoint are saved: resuming the finished run
// trains no further and writes them.
func afterTraining(err error, long *runctl.LongRun) error {
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("interrupted after training: the model and checkpoint are saved in %s, the checks' results and pictures may be missing; to write them: %s",
			long.Out, long.ResumeCommand(long.CheckpointPath()))
	}
	return err
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

// writeJSON writes v as indented JSON to path atomically.
func writeJSON(path string, v any) error {
	return safefile.Write(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", " ")
		return enc.Encode(v)
	})
}

// writeOutputs writes run.json, the loss curve, the gate histograms, the
// hard rollout on the training grid and one animation per check (each with
// its last frame as a PNG) into dir.
// It stops between files when ctx is done; every file is written atomically,
// so none is left half-written under its name.
func writeOutputs(ctx context.Context, dir string, e *experiments.Experiment, m *dlca.Model, rec *runRecord) error {
	if err := writeJSON(filepath.Join(dir, "run.json"), rec); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	title := fmt.Sprintf("%s, seed %d, wiring seed %d", e.Name, rec.Seed, rec.WiringSeed)
	if err := saveLossPlot(filepath.Join(dir, "loss.png"), title, rec.Metrics, methodChanges(*rec)...); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := saveGatePlot(filepath.Join(dir, "gates.png"), title+": gates after training", m); err != nil {
		return err
	}
	if err := saveLayerPlots(dir, title, rec.Metrics); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	train := experiments.Rollout(e, m, e.Model.Height, e.Steps, 0, 0)
	if err := saveBitsGIF(filepath.Join(dir, "rollout.gif"), e, train, paintOptions(e, 16)); err != nil {
		return err
	}
	for _, c := range rec.Checks {
		if err := ctx.Err(); err != nil {
			return err
		}
		if c.Frames != nil {
			if err := saveBitsGIF(filepath.Join(dir, c.Name+".gif"), e, c.Frames, paintOptions(e, 4)); err != nil {
				return err
			}
		}
		if c.Curve != nil {
			if err := saveCurvePlot(filepath.Join(dir, c.Name+".png"), e.Name+": "+c.Name, "error (wrong cells)", c.Curve); err != nil {
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
