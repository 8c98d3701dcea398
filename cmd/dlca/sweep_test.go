package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/dlca/dlca/cmd/internal/sweep"
)

// dlcaWrapper writes a script that runs this test binary as the dlca
// command (TestMain), for commands that start dlca as a program: the sweep's
// runs, Slurm's tasks.
func dlcaWrapper(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "dlca")
	script := "#!/bin/bash\nIFS=$'\\x1f'\nDLCA_RUN_AS_COMMAND=\"$*\" exec " + os.Args[0] + "\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeSweep writes a sweep file of the small checkerboard over three
// batch seeds.
func writeSweep(t *testing.T, iterations int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "small.toml")
	text := "experiment = \"checkerboard-small\"\n[set]\niterations = " + strconv.Itoa(iterations) + "\n[grid]\nseed = [1, 2, 3]\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// cancelOn is a writer that cancels when what it has been written holds
// trigger.
type cancelOn struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	trigger string
	cancel  context.CancelFunc
}

func (c *cancelOn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.buf.Write(p)
	if strings.Contains(c.buf.String(), c.trigger) {
		c.cancel()
	}
	return len(p), nil
}

// TestSweepResume: a local sweep interrupted in its second run, then run
// again, trains only what was missing (the finished run is left alone, the
// interrupted one resumes from its checkpoint, the last starts), and ends
// with the same models, bit for bit, as a sweep that ran without a break.
func TestSweepResume(t *testing.T) {
	file, dlca := writeSweep(t, 60), dlcaWrapper(t)
	whole, broken := t.TempDir(), t.TempDir()
	args := func(out string, jobs string) []string {
		return []string{"sweep", "-config", file, "-out", out, "-jobs", jobs, "-dlca", dlca}
	}
	if code, _, errs := runCmd(args(whole, "3")...); code != 0 {
		t.Fatalf("uninterrupted sweep: exit %d\n%s", code, errs)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &cancelOn{trigger: "seed-2: iter", cancel: cancel}
	if code := run(ctx, args(broken, "1"), &bytes.Buffer{}, stderr); code == 0 {
		t.Fatalf("interrupted sweep: exit 0\n%s", stderr.buf.String())
	}
	if !strings.Contains(stderr.buf.String(), "run the same command again") {
		t.Errorf("interrupted sweep does not say how to go on:\n%s", stderr.buf.String())
	}
	plan, err := sweep.ReadPlan(broken)
	if err != nil {
		t.Fatal(err)
	}
	st := sweep.Status(broken, plan)
	if st[0].State != sweep.Finished || st[1].State != sweep.Unfinished || st[2].State != sweep.Missing {
		t.Fatalf("after the interruption: %v (%s), %v, %v; want finished, unfinished, missing", st[0].State, st[1].Detail, st[1].State, st[2].State)
	}
	first, err := os.ReadFile(filepath.Join(st[0].Dir, "model.json"))
	if err != nil {
		t.Fatal(err)
	}

	code, out, errs := runCmd(args(broken, "1")...)
	if code != 0 {
		t.Fatalf("sweep run again: exit %d\n%s", code, errs)
	}
	if !strings.Contains(errs, "1 finished already; training 2") || !strings.Contains(errs, "resuming (checkpoint at iteration") {
		t.Errorf("sweep run again does not say it skips the finished run and resumes the second:\n%s", errs)
	}
	if !strings.Contains(out, "results.md (3 runs)") {
		t.Errorf("sweep's output: %q; want the results page of 3 runs", out)
	}
	for i, r := range plan.Runs {
		log, _ := os.ReadFile(sweep.LogPath(broken, r.Name))
		if attempts := strings.Count(string(log), "\n== "); attempts+1 != []int{1, 2, 1}[i] || (i == 1) != strings.Contains(string(log), "-resume") {
			t.Errorf("run %s trained %d times (log below); want the first and last once, the second twice, resumed:\n%s", r.Name, attempts+1, log)
		}
		a, err1 := os.ReadFile(filepath.Join(sweep.RunDir(whole, r.Name), "model.json"))
		b, err2 := os.ReadFile(filepath.Join(sweep.RunDir(broken, r.Name), "model.json"))
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			t.Errorf("run %s: the model of the resumed sweep differs from the uninterrupted one's (%v, %v)", r.Name, err1, err2)
		}
		if i == 0 && !bytes.Equal(a, first) {
			t.Errorf("run %s, finished before the interruption, was trained again", r.Name)
		}
	}
	if bytes.Equal(mustRead(t, filepath.Join(sweep.RunDir(whole, plan.Runs[0].Name), "model.json")), mustRead(t, filepath.Join(sweep.RunDir(whole, plan.Runs[1].Name), "model.json"))) {
		t.Errorf("runs of different seeds trained the same model: the seeds did not reach dlca train")
	}
}

// TestSweepFailedRun: a run that fails is recorded as failed with its
// reason while the others finish; the sweep exits 1, the results page holds
// the others, and running the sweep again retries the failed run alone.
func TestSweepFailedRun(t *testing.T) {
	file, dlca, dir := writeSweep(t, 10), dlcaWrapper(t), t.TempDir()
	failing := filepath.Join(t.TempDir(), "dlca")
	script := "#!/bin/bash\ncase \"$*\" in *seed=2*) echo 'dlca train: the disk is full' >&2; exit 3 ;; esac\nexec " + dlca + " \"$@\"\n"
	if err := os.WriteFile(failing, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCmd("sweep", "-config", file, "-out", dir, "-dlca", failing)
	if code != 1 || !strings.Contains(errs, "1 of 3 runs failed") || !strings.Contains(errs, "the disk is full") {
		t.Fatalf("sweep with a failing run: exit %d\n%s", code, errs)
	}
	code, out, _ := runCmd("sweep", "-status", dir)
	if code != 0 || !strings.Contains(out, "3 runs: 2 finished, 1 failed, 0 unfinished, 0 missing") || !regexp.MustCompile(`seed-2 +failed +exit status 3: dlca train: the disk is full`).MatchString(out) {
		t.Errorf("status after a failed run: exit %d\n%s", code, out)
	}
	if page := string(mustRead(t, filepath.Join(dir, "results.md"))); strings.Count(page, "| checkerboard-small | ") != 2 || !strings.Contains(page, "| run | seed | experiment |") { // the 2 finished runs, with their seed
		t.Errorf("results page of 2 finished runs:\n%s", page)
	}
	code, _, errs = runCmd("sweep", "-config", file, "-out", dir, "-dlca", dlca)
	if code != 0 || !strings.Contains(errs, "2 finished already; training 1") {
		t.Fatalf("sweep run again: exit %d\n%s", code, errs)
	}
	if code, out, errs = runCmd("results", dir); code != 0 || !strings.Contains(errs, "3 runs: 3 finished") || !strings.Contains(out, "results.md (3 runs)") {
		t.Errorf("dlca results %s: exit %d\n%s%s", dir, code, out, errs)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// paperJAXRun says what is wrong with a run of the paper's experiment name
// on the paper's random stream in the sweep of its wiring seeds
// (examples/sweeps/NAME-jax.toml), straight-through from the iteration
// straight (nil: the paper's method).
func paperJAXRun(name string, with23 bool, straight any) func(r sweep.Run) string {
	return func(r sweep.Run) string {
		c := r.Resolved.(map[string]any)
		if c["name"] != name || c["rng"] != "jax" || c["seed"] != 23.0 || (c["wiring_seed"] == 23.0) != (with23 && r.Name == "wiring_seed-23") || "wiring_seed-"+fmt.Sprint(c["wiring_seed"]) != r.Name ||
			c["straight_through_from"] != straight {
			return fmt.Sprintf("name %v, rng %v, seed %v, wiring seed %v, straight-through from %v", c["name"], c["rng"], c["seed"], c["wiring_seed"], c["straight_through_from"])
		}
		return ""
	}
}

// penaltyRun checks a run of the G's state-penalty sweeps: the paper's
// set-up on its stream, 4,000 iterations, the penalty 0.01 from 3,001.
func penaltyRun(r sweep.Run) string {
	c := r.Resolved.(map[string]any)
	if wrong := paperJAXRun("colour-g", true, nil)(r); wrong != "" {
		return wrong
	}
	if c["iterations"] != 4000.0 || c["state_penalty"] != 0.01 || c["state_penalty_from"] != 3001.0 {
		return fmt.Sprintf("iterations %v, state penalty %v from %v", c["iterations"], c["state_penalty"], c["state_penalty_from"])
	}
	return ""
}

// pcgRun checks a run of the PCG sweeps: the experiment name, the default
// stream and the same seed for the batches and the wiring.
func pcgRun(name string) func(r sweep.Run) string {
	return func(r sweep.Run) string {
		c := r.Resolved.(map[string]any)
		if c["name"] != name || c["rng"] != nil && c["rng"] != "pcg" || c["seed"] != c["wiring_seed"] {
			return fmt.Sprintf("name %v, rng %v, seed %v, wiring seed %v", c["name"], c["rng"], c["seed"], c["wiring_seed"])
		}
		return ""
	}
}

// TestSweepExamples: the example sweeps of examples/sweeps plan as their
// comments say, each run's resolved configuration holding its settings,
// and their Slurm scripts ask for one task per run.
func TestSweepExamples(t *testing.T) {
	for _, tc := range []struct {
		file  string
		runs  int
		check func(r sweep.Run) string // what is wrong with run r's resolved configuration
	}{
		{"lizard-wirings.toml", 16, func(r sweep.Run) string {
			c := r.Resolved.(map[string]any)
			if c["name"] != "lizard" || c["seed"] != 23.0 || "wiring_seed-"+fmt.Sprint(c["wiring_seed"]) != r.Name {
				return fmt.Sprintf("name %v, seed %v, wiring seed %v", c["name"], c["seed"], c["wiring_seed"])
			}
			return ""
		}},
		{"lizard-jax.toml", 8, paperJAXRun("lizard", false, nil)},
		{"colour-g-jax.toml", 24, paperJAXRun("colour-g", true, nil)},
		{"colour-g-jax-straight.toml", 3, paperJAXRun("colour-g", true, 2000.0)},
		{"colour-g-jax-penalty.toml", 4, penaltyRun},
		{"colour-g-jax-penalty-more.toml", 6, penaltyRun},
		{"pcg-checkerboard.toml", 9, pcgRun("checkerboard")},
		{"pcg-checkerboard-small.toml", 5, pcgRun("checkerboard-small")},
		{"pcg-gameoflife.toml", 3, pcgRun("gameoflife")},
		{"pcg-checkerboard-async.toml", 5, pcgRun("checkerboard-async")},
		{"ring-lr.toml", 9, func(r sweep.Run) string {
			c := r.Resolved.(map[string]any)
			if c["name"] != "ring" || c["iterations"] != 1000.0 || fmt.Sprintf("lr-%v_wiring_seed-%v", c["lr"], c["wiring_seed"]) != r.Name {
				return fmt.Sprintf("name %v, iterations %v, lr %v, wiring seed %v", c["name"], c["iterations"], c["lr"], c["wiring_seed"])
			}
			return ""
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			dir := t.TempDir()
			code, out, errs := runCmd("sweep", "-config", filepath.Join("..", "..", "examples", "sweeps", tc.file), "-out", dir, "-emit", "slurm", "-dlca", "/usr/local/bin/dlca")
			if code != 0 {
				t.Fatalf("exit %d\n%s%s", code, out, errs)
			}
			plan, err := sweep.ReadPlan(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Runs) != tc.runs {
				t.Fatalf("%d runs, want %d", len(plan.Runs), tc.runs)
			}
			for _, r := range plan.Runs {
				if wrong := tc.check(r); wrong != "" {
					t.Errorf("run %s resolves to %s", r.Name, wrong)
				}
			}
			script := string(mustRead(t, filepath.Join(dir, sweep.ScriptName)))
			if !strings.Contains(script, fmt.Sprintf("#SBATCH --array=0-%d\n", tc.runs-1)) || !strings.Contains(script, "dlca=/usr/local/bin/dlca\n") {
				t.Errorf("script:\n%s", script)
			}
		})
	}
}
