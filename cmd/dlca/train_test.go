package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/cmd/internal/runctl"
)

// trainSmall runs dlca train on the small checkerboard for iterations
// iterations into out, with extra flags, and fails t unless it succeeds.
func trainSmall(t *testing.T, out string, iterations int, extra ...string) {
	t.Helper()
	args := append([]string{"train", "-experiment", "checkerboard-small", "-iterations", fmt.Sprint(iterations), "-quiet", "-out", out}, extra...)
	if code, _, errs := runCmd(args...); code != 0 {
		t.Fatalf("dlca %s: exit %d: %s", strings.Join(args, " "), code, errs)
	}
}

// copyFile copies a file for a test case.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRerunRefused: the same train command again, into a folder that holds
// a run (interrupted, finished, a model without a checkpoint) or that
// another training holds, is refused with the command that goes on, and
// changes no file there; resuming from an earlier checkpoint never replaces
// a later one; -force starts over.
func TestRerunRefused(t *testing.T) {
	dir := t.TempDir()
	finished := filepath.Join(dir, "finished")
	trainSmall(t, finished, 3)
	early := filepath.Join(dir, "early.json") // a copy of iteration 3
	copyFile(t, filepath.Join(finished, "checkpoint.json"), early)
	trainSmall(t, finished, 5, "-resume", filepath.Join(finished, "checkpoint.json"))

	// An interrupted run: its checkpoint is at iteration 3 of 10.
	interrupted := filepath.Join(dir, "interrupted")
	if err := os.Mkdir(interrupted, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(early)
	if err != nil {
		t.Fatal(err)
	}
	ckpt := filepath.Join(interrupted, "checkpoint.json")
	if err := os.WriteFile(ckpt, bytes.Replace(b, []byte(`"iterations":3,`), []byte(`"iterations":10,`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	// A finished run's model without its checkpoint.
	modelOnly := filepath.Join(dir, "model-only")
	if err := os.Mkdir(modelOnly, 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile(t, filepath.Join(finished, "model.json"), filepath.Join(modelOnly, "model.json"))
	// A folder another training holds.
	locked := filepath.Join(dir, "locked")
	if err := os.Mkdir(locked, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(locked, runctl.LockName), []byte(fmt.Sprintf("%d\n", os.Getpid())), 0o644); err != nil {
		t.Fatal(err)
	}

	small := []string{"train", "-experiment", "checkerboard-small", "-iterations", "3", "-quiet"}
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"finished run", append(small, "-out", finished), []string{
			finished + " already holds a finished run (checkpoint " + filepath.Join(finished, "checkpoint.json") + ", iteration 5 of 5)",
			"dlca train -resume " + filepath.Join(finished, "checkpoint.json") + " -iterations N", "-force"}},
		{"interrupted run", append(small, "-out", interrupted), []string{
			"already holds an unfinished run (checkpoint " + ckpt + ", iteration 3 of 10)", "go on with: dlca train -resume " + ckpt, "-force"}},
		{"model without a checkpoint", append(small, "-out", modelOnly), []string{"already holds a trained model (model.json"}},
		{"resuming an earlier checkpoint over a later one", append(small, "-out", finished, "-resume", early), []string{
			filepath.Join(finished, "checkpoint.json") + " is at iteration 5, later than the checkpoint " + early + " you resume (iteration 3)"}},
		{"another training holds the folder", append(small, "-out", locked), []string{fmt.Sprintf("another training (process %d) is writing into %s", os.Getpid(), locked)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := snapshot(t, dir)
			code, _, errs := runCmd(tc.args...)
			for _, w := range tc.want {
				if code != 1 || !strings.Contains(errs, w) {
					t.Fatalf("exit %d, stderr %q; want exit 1 saying %q", code, errs, w)
				}
			}
			after := snapshot(t, dir)
			if len(after) != len(before) {
				t.Errorf("%d files before, %d after", len(before), len(after))
			}
			for p, h := range before {
				if after[p] != h {
					t.Errorf("%s changed", p)
				}
			}
		})
	}

	t.Run("-force starts over", func(t *testing.T) {
		trainSmall(t, finished, 2, "-force")
		ck, err := bptt.LoadCheckpoint(filepath.Join(finished, "checkpoint.json"))
		if err != nil || ck.Iteration != 2 || ck.Iterations != 2 {
			t.Fatalf("checkpoint after -force: %v, want the new run's iteration 2 of 2", err)
		}
	})
}

// runRecordOf reads a run's run.json.
func runRecordOf(t *testing.T, dir string) runRecord {
	t.Helper()
	var rec runRecord
	b, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if err != nil || json.Unmarshal(b, &rec) != nil {
		t.Fatalf("run.json of %s: %v", dir, err)
	}
	return rec
}

// TestResumeFromCheckpointAlone: "dlca train -resume CKPT" alone continues
// the run with every setting it was started with (the seeds above all),
// into its own folder, and gives the model of an uninterrupted run byte for
// byte; run.json records the run's settings, not the flags' defaults.
func TestResumeFromCheckpointAlone(t *testing.T) {
	dir := t.TempDir()
	settings := []string{"-seed", "5", "-wiring-seed", "7", "-checkpoint-every", "2"}
	whole, parts := filepath.Join(dir, "whole"), filepath.Join(dir, "parts")
	trainSmall(t, whole, 6, settings...)
	trainSmall(t, parts, 4, settings...)
	ckpt := filepath.Join(parts, "checkpoint.json")
	// The same checkpoint as format version 1 wrote it, without settings.
	b, err := os.ReadFile(ckpt)
	if err != nil {
		t.Fatal(err)
	}
	b = append(bytes.Replace(b[:bytes.Index(b, []byte(`,"settings":`))], []byte(`"version":2`), []byte(`"version":1`), 1), "}\n"...)
	v1 := writeFile(t, dir, "v1.json", b)
	v1Out := filepath.Join(dir, "v1")
	for _, tc := range []struct {
		name string
		args []string
		out  string
	}{
		{"the checkpoint alone, to more iterations", []string{"train", "-quiet", "-resume", ckpt, "-iterations", "6"}, parts},
		{"the finished run again: nothing to train, the same outputs", []string{"train", "-quiet", "-resume", ckpt}, parts},
		{"a version 1 checkpoint, with -out as before", []string{"train", "-quiet", "-resume", v1, "-iterations", "6", "-checkpoint-every", "2", "-out", v1Out}, v1Out},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if code, _, errs := runCmd(tc.args...); code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			want, _ := os.ReadFile(filepath.Join(whole, "model.json"))
			got, err := os.ReadFile(filepath.Join(tc.out, "model.json"))
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("the resumed model differs from the uninterrupted one (%v)", err)
			}
			rec := runRecordOf(t, tc.out)
			if rec.Experiment != "checkerboard-small" || rec.Seed != 5 || rec.WiringSeed != 7 || rec.Iterations != 6 || len(rec.Metrics) != 6 {
				t.Fatalf("run.json: experiment %s, seed %d, wiring seed %d, %d iterations, %d metrics; want checkerboard-small, 5, 7, 6, 6",
					rec.Experiment, rec.Seed, rec.WiringSeed, rec.Iterations, len(rec.Metrics))
			}
			ck, err := bptt.LoadCheckpoint(filepath.Join(tc.out, "checkpoint.json"))
			if err != nil || ck.Iteration != 6 || ck.Settings["checkpoint-every"] != "2" {
				t.Fatalf("checkpoint: %v, settings %v", err, ck.Settings)
			}
		})
	}
}

// TestInterruptAfterTraining: SIGINT once the last iteration is done (the
// checks and pictures) stops the command promptly with exit status 1; the
// model and checkpoint are saved, no temporary file is left, and the
// command it names writes the rest. The full checkerboard's checks take
// seconds (64x64 grids, 200 steps), so the signal arrives during them.
func TestInterruptAfterTraining(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	cmd, pipe := startCommand(t, "train", "-experiment", "checkerboard", "-iterations", "2", "-out", out)
	var stderr bytes.Buffer
	sent := time.Time{}
	sc := bufio.NewScanner(pipe)
	for sc.Scan() {
		stderr.WriteString(sc.Text() + "\n")
		if strings.HasPrefix(sc.Text(), "iter 2/2") {
			cmd.Process.Signal(syscall.SIGINT)
			sent = time.Now()
		}
	}
	err := cmd.Wait()
	took := time.Since(sent)
	msg := stderr.String()
	switch {
	case sent.IsZero():
		t.Fatalf("no last progress line: %s", msg)
	case err == nil:
		t.Fatalf("exit 0: SIGINT after the last iteration did not stop the command (it took %v)", took)
	case cmd.ProcessState.ExitCode() != 1 || !strings.Contains(msg, "interrupted after training") || strings.Contains(msg, "panic"):
		t.Fatalf("exit %v, stderr %q", err, msg)
	case took > 2*time.Second:
		t.Errorf("the command took %v to stop after SIGINT", took)
	}
	for _, f := range []string{"model.json", "checkpoint.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("%s not saved: %v", f, err)
		}
	}
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") || e.Name() == runctl.LockName {
			t.Errorf("%s left behind", e.Name())
		}
	}
	resume := "dlca train -resume " + filepath.Join(out, "checkpoint.json")
	if !strings.Contains(msg, resume) {
		t.Fatalf("the message does not say %q: %s", resume, msg)
	}
	if code, _, errs := runCmd("train", "-quiet", "-resume", filepath.Join(out, "checkpoint.json")); code != 0 {
		t.Fatalf("%s: exit %d: %s", resume, code, errs)
	}
	for _, f := range []string{"run.json", "loss.png", "rollout.gif", "self-healing.gif"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("the resumed command did not write %s: %v", f, err)
		}
	}
}

// TestTrainJAXStream: -rng jax is recorded in run.json and the model file,
// draws another model than the default stream, and a run resumed from its
// checkpoint draws the batches of the uninterrupted run (the JAX batches are
// a function of the iteration alone).
func TestTrainJAXStream(t *testing.T) {
	dir := t.TempDir()
	whole, parts, pcg := filepath.Join(dir, "whole"), filepath.Join(dir, "parts"), filepath.Join(dir, "pcg")
	trainSmall(t, whole, 4, "-rng", "jax")
	trainSmall(t, parts, 2, "-rng", "jax", "-checkpoint-every", "2")
	trainSmall(t, pcg, 4)
	if code, _, errs := runCmd("train", "-quiet", "-resume", filepath.Join(parts, "checkpoint.json"), "-iterations", "4"); code != 0 {
		t.Fatalf("resume: exit %d: %s", code, errs)
	}
	want, _ := os.ReadFile(filepath.Join(whole, "model.json"))
	got, _ := os.ReadFile(filepath.Join(parts, "model.json"))
	if !bytes.Equal(got, want) {
		t.Error("the resumed JAX run differs from the uninterrupted one")
	}
	if !bytes.Contains(want, []byte(`"rng": "jax"`)) {
		t.Error(`the model file does not record "rng": "jax"`)
	}
	if rec := runRecordOf(t, whole); rec.Config == nil || rec.Config.RNG != "jax" {
		t.Errorf("run.json records rng %v", rec.Config)
	}
	if other, _ := os.ReadFile(filepath.Join(pcg, "model.json")); bytes.Contains(other, []byte(`"rng"`)) || bytes.Equal(other, want) {
		t.Error("the default stream names a stream in its model file, or draws the JAX model")
	}
}

// TestStrictChecks: a run too short to learn the checkerboard fails its
// checks; plain train still exits 0 (the model is what it was asked for),
// -strict-checks exits 1 naming the failed checks, as dlca check does, and
// writes the model and run.json all the same.
func TestStrictChecks(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	trainSmall(t, plain, 2)
	if code, _, errs := runCmd("check", "-model", filepath.Join(plain, "model.json")); code != 1 {
		t.Fatalf("dlca check of a 2-iteration model: exit %d (%s), want 1: the test needs a model that fails a check", code, errs)
	}
	strict := filepath.Join(dir, "strict")
	code, _, errs := runCmd("train", "-experiment", "checkerboard-small", "-iterations", "2", "-quiet", "-strict-checks", "-out", strict)
	if code != 1 || !strings.Contains(errs, "checks failed") || !strings.Contains(errs, "-strict-checks") {
		t.Fatalf("train -strict-checks: exit %d, stderr %q; want exit 1 naming the failed checks", code, errs)
	}
	for _, name := range []string{"model.json", "run.json"} {
		if _, err := os.Stat(filepath.Join(strict, name)); err != nil {
			t.Errorf("train -strict-checks with a failed check left no %s: %v", name, err)
		}
	}
}
