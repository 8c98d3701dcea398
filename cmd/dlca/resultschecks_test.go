package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/experiments"
)

// TestResultsStream: dlca results reads each run's random stream from its
// run.json (pcg where none is recorded, as in older runs), shows it in the
// run's row, summarises the streams' runs apart, and names the pictures and
// their heading after a stream other than pcg. A run of a change to the
// paper's method (straight-through) is labelled and summarised apart.
func TestResultsStream(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	// run writes a run folder whose run.json records rng in its
	// configuration: none at all when rng is "-" (runs from before the
	// configuration was recorded), no rng key when it is "".
	run := func(name string, wiring uint64, hard float64, rng string) string {
		r := runRecord{Experiment: "lizard", Seed: 23, WiringSeed: wiring, Iterations: 3500, Final: bptt.Metrics{HardLoss: hard}}
		if rng != "-" {
			r.Config = &experiments.Config{Name: "lizard", WiringSeed: wiring, RNG: rng}
		}
		if strings.HasPrefix(name, "st-") {
			r.Config.StraightThroughFrom = 3000
		}
		if strings.HasPrefix(name, "pen-") {
			r.Config.StatePenalty, r.Config.StatePenaltyFrom = 0.01, 3001
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), `"rng"`) != (rng == "jax") {
			t.Fatalf("run.json of %s: %s", name, b)
		}
		return fakeRun(t, dir, name, string(b))
	}
	runs := []string{run("jax-23", 23, 0, "jax"), run("old-4", 4, 10, "-"), run("jax-5", 5, 3, "jax"), run("pcg-6", 6, 7, ""), run("st-7", 7, 1, "jax"), run("pen-8", 8, 0, "jax")}
	code, _, errs := runCmd(append([]string{"results", "-out", "R.md", "-img", "img"}, runs...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	md := string(mustRead(t, filepath.Join(dir, "R.md")))
	for _, want := range []string{
		"| experiment | stream | batch seed |",
		"| **lizard (paper)** | jax | 23 | 23 | 3500 |",
		"| lizard | jax | 23 | 23 | 3500 |",
		"| lizard | pcg | 23 | 4 | 3500 |",
		"| lizard | jax | 23 | 5 | 3500 |",
		"| lizard | pcg | 23 | 6 | 3500 |",
		// The summary: one row per stream, each with its own runs.
		"| lizard | jax | 3500 | 2 | 0 | 0 | 0 (23) |",
		"| lizard | pcg | 3500 | 2 | 0 | 0 | 7 (6) |",
		// A change to the paper's method has rows of its own.
		"| lizard, straight-through from 3000 | jax | 23 | 7 | 3500 |",
		"| lizard, straight-through from 3000 | jax | 3500 | 1 | 0 | 0 | 1 (7) |",
		"| lizard, state penalty 0.01 from 3001 | jax | 23 | 8 | 3500 |",
		"### lizard, jax stream, batch seed 23, wiring seed 23",
		"](img/lizard-jax-seed23-wiring23-loss.png)",
		// A change to the method has pictures of its own, named apart.
		"### lizard, straight-through from 3000, jax stream, batch seed 23, wiring seed 7",
		"](img/lizard-jax-seed23-wiring7-straight3000-loss.png)",
		"### lizard, state penalty 0.01 from 3001, jax stream, batch seed 23, wiring seed 8",
		"](img/lizard-jax-seed23-wiring8-penalty0.01from3001-loss.png)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the page lacks %q:\n%s", want, md)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "img", "lizard-jax-seed23-wiring23-loss.png")); err != nil {
		t.Errorf("the jax run's picture: %v", err)
	}
}

// TestResultsBesidePaper: a check the paper reports a figure for reads with
// the paper's figure and by how much the run differs from it; the
// fault-tolerance check with its count after twice the steps, the
// robustness check with its means over the second half and over all steps.
func TestResultsBesidePaper(t *testing.T) {
	// fault is a fault-tolerance result as the check writes it; later < 0
	// is one from before it counted after twice the steps.
	fault := func(wrong, later int) experiments.CheckResult {
		d := fmt.Sprintf("64x64, centre 20x20 zeroed every step (cells outside it): %d wrong cells after 80 steps (allowed 14, the paper's run)", wrong)
		if later >= 0 {
			d += fmt.Sprintf(", the nearest 30 cells from the hole; %d after 160 steps (0 expected)", later)
		}
		return experiments.CheckResult{Name: "fault-tolerance", Wrong: wrong, Passed: wrong <= 14, Detail: d}
	}
	robust := func(curve ...float64) experiments.CheckResult {
		return experiments.CheckResult{Name: "robustness", Wrong: 1, Curve: curve}
	}
	runs := []runRecord{
		{Experiment: "checkerboard", Checks: []experiments.CheckResult{fault(18, 3), robust(900, 1100, 1000, 1000)}},
		{Experiment: "checkerboard", Checks: []experiments.CheckResult{fault(12, 0), robust(1150, 1150)}},
		{Experiment: "checkerboard", Checks: []experiments.CheckResult{fault(18, -1)}}, // an older run
		{Experiment: "checkerboard-async", Checks: []experiments.CheckResult{robust(500, 700, 800, 900), fault(9, 2)}},
		{Experiment: "checkerboard-small", Checks: []experiments.CheckResult{fault(14, 5), {Name: "generalise", Wrong: 3}}},
	}
	var buf bytes.Buffer
	writeResults(&buf, runs, nil)
	md := buf.String()
	for _, want := range []string{
		"| fault-tolerance FAIL (18 wrong after 80 steps vs the paper's 14: 4 more; 3 after 160 steps); " +
			"robustness FAIL (mean error 1000 over the second half vs the paper's about 1150: 150 fewer; 1000 over all 4 steps) |",
		"| fault-tolerance PASS (12 wrong after 80 steps vs the paper's 14: 2 fewer; 0 after 160 steps); " +
			"robustness FAIL (mean error 1150 over the second half, the paper's about 1150; 1150 over all 2 steps) |",
		"| fault-tolerance FAIL (18 wrong vs the paper's 14: 4 more) |",
		// checkerboard-async: the paper's figure is the asynchronous
		// rule's, and it gives none for this fault-tolerance check.
		"| robustness FAIL (mean error 850 over the second half vs the paper's about 650: 200 more; 725 over all 4 steps); " +
			"fault-tolerance PASS (9 wrong after 80 steps; 2 after 160 steps) |",
		"| fault-tolerance PASS (14 wrong after 80 steps; 5 after 160 steps); generalise FAIL (3 wrong) |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the page lacks %q:\n%s", want, md)
		}
	}
}

// TestFaultLater: the count after twice the steps is read back from what
// the fault-tolerance check really writes, and agrees with a rollout of the
// same model counted here.
func TestFaultLater(t *testing.T) {
	e, m := randomModel(t, "checkerboard-small")
	var spec experiments.CheckSpec
	for _, s := range e.Config.Checks {
		if s.Kind == "fault-tolerance" {
			spec = s
		}
	}
	if spec.Kind == "" {
		t.Fatal("checkerboard-small has no fault-tolerance check")
	}
	frames := experiments.Rollout(e, m, spec.Size, 2*spec.Steps, spec.Hole, 2*spec.Steps)
	want := experiments.WrongCells(e, &frames[2*spec.Steps], spec.Hole)
	for _, c := range experiments.RunChecks(e, m) {
		if c.Name != "fault-tolerance" {
			if _, _, ok := experiments.FaultLater(c); ok {
				t.Errorf("FaultLater read %s's result %q", c.Name, c.Detail)
			}
			continue
		}
		// The asynchronous checkerboard's checks add a phase note at the end.
		for _, d := range []string{c.Detail, c.Detail + " (against the inverted checkerboard)"} {
			c.Detail = d
			later, steps, ok := experiments.FaultLater(c)
			if !ok || later != want || steps != 2*spec.Steps {
				t.Errorf("FaultLater(%q) = %d, %d, %v; want %d after %d steps", d, later, steps, ok, want, 2*spec.Steps)
			}
		}
	}
	old := experiments.CheckResult{Name: "fault-tolerance", Detail: "64x64: 18 wrong cells, the nearest 2 cells from the hole"}
	if _, _, ok := experiments.FaultLater(old); ok {
		t.Errorf("FaultLater read an older result %q", old.Detail)
	}
}
