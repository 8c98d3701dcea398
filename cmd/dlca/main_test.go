package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCmd runs the command line in-process and returns its exit status and
// output.
func runCmd(args ...string) (int, string, string) {
	var out, errs bytes.Buffer
	code := run(context.Background(), args, &out, &errs)
	return code, out.String(), errs.String()
}

func TestBadCommandLines(t *testing.T) {
	dir := t.TempDir()
	notJSON := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(notJSON, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no command", nil, 2, "usage"},
		{"unknown command", []string{"frobnicate"}, 2, "unknown command"},
		{"unknown flag", []string{"train", "-colour", "red"}, 2, "flag provided but not defined"},
		{"train without out", []string{"train"}, 1, "-out is required"},
		{"train unknown experiment", []string{"train", "-experiment", "nope", "-out", dir}, 1, "unknown experiment"},
		{"train unknown device", []string{"train", "-device", "tpu", "-out", dir}, 1, "unknown device"},
		{"train negative iterations", []string{"train", "-iterations", "-3", "-out", dir}, 1, "must not be negative"},
		{"train stray argument", []string{"train", "-out", dir, "extra"}, 1, "unexpected argument"},
		{"eval without model", []string{"eval"}, 1, "-model is required"},
		{"eval missing model", []string{"eval", "-model", filepath.Join(dir, "none.json")}, 1, "cannot open"},
		{"eval truncated model", []string{"eval", "-model", notJSON}, 1, "truncated"},
		{"eval bad size", []string{"eval", "-model", notJSON, "-size", "0"}, 1, "-size"},
		{"check without model", []string{"check"}, 1, "-model is required"},
		{"results without runs", []string{"results"}, 2, "usage"},
		{"results not a run", []string{"results", "-out", filepath.Join(dir, "r.md"), dir}, 1, "no training run among"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := runCmd(tc.args...)
			if code != tc.code || !strings.Contains(errs, tc.want) {
				t.Fatalf("exit %d, stderr %q; want exit %d mentioning %q", code, errs, tc.code, tc.want)
			}
		})
	}
}

// TestTrainNeverZero: a run that never reaches hard loss 0 says so, rather
// than naming iteration 0.
func TestTrainNeverZero(t *testing.T) {
	code, out, errs := runCmd("train", "-experiment", "checkerboard-small", "-iterations", "3", "-checkpoint-every", "0", "-out", t.TempDir())
	if code != 0 {
		t.Fatalf("train: exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "hard loss never 0") || strings.Contains(out, "iteration 0") {
		t.Errorf("train output after 3 iterations:\n%s", out)
	}
}

// TestTrainEvalCheckResults runs the whole command line on the small
// checkerboard: train writes every output, eval and check read the model,
// results renders the run.
func TestTrainEvalCheckResults(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := runCmd("train", "-experiment", "checkerboard-small", "-out", dir)
	if code != 0 {
		t.Fatalf("train: exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "hard loss 0") {
		t.Fatalf("train did not reach hard loss 0:\n%s", out)
	}
	var rec struct {
		FirstHard0 int `json:"first_hard_zero"`
	}
	if b, err := os.ReadFile(filepath.Join(dir, "run.json")); err != nil || json.Unmarshal(b, &rec) != nil || rec.FirstHard0 <= 0 {
		t.Fatalf("run.json has no first_hard_zero: %v %+v", err, rec)
	}
	if want := fmt.Sprintf("hard loss first 0 at iteration %d", rec.FirstHard0); !strings.Contains(out, want) {
		t.Errorf("train output lacks %q:\n%s", want, out)
	}
	for _, f := range []string{"model.json", "run.json", "loss.png", "rollout.gif", "generalise.gif", "fault-tolerance.gif", "self-healing.gif"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("train did not write %s: %v", f, err)
		}
	}
	model := filepath.Join(dir, "model.json")
	gif := filepath.Join(dir, "eval.gif")
	code, out, errs = runCmd("eval", "-experiment", "checkerboard-small", "-model", model, "-size", "24", "-steps", "30", "-gif", gif)
	if code != 0 || !strings.Contains(out, "hard rollout, 24x24, 30 steps") || !strings.Contains(out, ": 0 of 576 cells differ") {
		t.Fatalf("eval: exit %d, %s%s", code, out, errs)
	}
	code, out, errs = runCmd("eval", "-experiment", "checkerboard-small", "-model", model, "-size", "16", "-steps", "20", "-soft")
	if code != 0 || !strings.Contains(out, "soft rollout") {
		t.Fatalf("eval -soft: exit %d, %s%s", code, out, errs)
	}
	code, out, _ = runCmd("check", "-experiment", "checkerboard-small", "-model", model)
	if !strings.Contains(out, "check generalise") || !strings.Contains(out, "check self-healing") || (code != 0 && code != 1) {
		t.Fatalf("check: exit %d, %s", code, out)
	}
	md := filepath.Join(dir, "RESULTS.md")
	if code, _, errs := runCmd("results", "-out", md, dir); code != 0 {
		t.Fatalf("results: exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(md)
	if err != nil || !strings.Contains(string(b), "| checkerboard-small | pcg | 23 | 23 | 300 |") {
		t.Fatalf("RESULTS.md:\n%s (%v)", b, err)
	}
}

// TestResumeLonger: a run resumed with more iterations than it was started
// with goes on to the new count, keeps the metrics of every iteration, and
// its wall time covers the iterations before the resume too.
func TestResumeLonger(t *testing.T) {
	first, second := t.TempDir(), t.TempDir()
	if code, _, errs := runCmd("train", "-experiment", "checkerboard-small", "-iterations", "6", "-quiet", "-out", first); code != 0 {
		t.Fatalf("train: exit %d: %s", code, errs)
	}
	ckpt := filepath.Join(first, "checkpoint.json")
	if code, _, errs := runCmd("train", "-experiment", "checkerboard-small", "-iterations", "10", "-resume", ckpt, "-quiet", "-out", second); code != 0 {
		t.Fatalf("resume: exit %d: %s", code, errs)
	}
	var rec struct {
		Iterations int     `json:"iterations"`
		Wall       float64 `json:"wall_seconds"`
		Metrics    []struct {
			Iteration int   `json:"iteration"`
			TimeNS    int64 `json:"time_ns"`
		} `json:"metrics"`
	}
	b, err := os.ReadFile(filepath.Join(second, "run.json"))
	if err != nil || json.Unmarshal(b, &rec) != nil {
		t.Fatalf("run.json: %v", err)
	}
	if rec.Iterations != 10 || len(rec.Metrics) != 10 || rec.Metrics[9].Iteration != 10 {
		t.Fatalf("resumed run: %d iterations, %d metrics", rec.Iterations, len(rec.Metrics))
	}
	var total float64
	for _, m := range rec.Metrics {
		total += float64(m.TimeNS) / 1e9
	}
	if rec.Wall < total {
		t.Errorf("wall time %.3fs is less than the %.3fs the 10 iterations took", rec.Wall, total)
	}
}

// TestOnePrefix: an error of the dlca package (its messages start "dlca: ")
// is printed with the command's name once, not "dlca eval: dlca: ...".
func TestOnePrefix(t *testing.T) {
	code, _, errs := runCmd("eval", "-model", filepath.Join(t.TempDir(), "nothere.json"))
	if code != 1 || !strings.HasPrefix(errs, "dlca eval: cannot open model file") || strings.Contains(errs, "dlca: ") {
		t.Fatalf("exit %d, stderr %q; want exit 1 and one prefix: dlca eval: cannot open model file", code, errs)
	}
}

// TestHelpSaysWhatResultsDoes: dlca -h describes results as what it is (a
// page of any runs), not as regenerating this repository's page.
func TestHelpSaysWhatResultsDoes(t *testing.T) {
	_, out, _ := runCmd("-h")
	line := ""
	for l := range strings.Lines(out) {
		if strings.HasPrefix(strings.TrimSpace(l), "results ") {
			line = l
		}
	}
	if line == "" || strings.Contains(line, "docs/RESULTS.md") || !strings.Contains(line, "from saved runs or sweeps") {
		t.Fatalf("dlca -h's results line %q: want a description of the page it writes, without docs/RESULTS.md", line)
	}
}
