package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dlca/dlca/experiments"
)

// TestSweepResultsPage: a sweep over two settings (lr and seed, 2 x 2 runs
// of the small checkerboard) writes a results page with a column for each,
// a summary grouped by each key's values whose figures are those of the
// runs' own run.json, no row of experiments outside the sweep, and for
// each key a loss-curve plot and an outcome bar chart.
func TestSweepResultsPage(t *testing.T) {
	file := filepath.Join(t.TempDir(), "two.toml")
	text := "experiment = \"checkerboard-small\"\n[set]\niterations = 4\n[grid]\nlr = [0.05, 0.1]\nseed = [1, 2]\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if code, _, errs := runCmd("sweep", "-config", file, "-out", dir, "-jobs", "2", "-dlca", dlcaWrapper(t)); code != 0 {
		t.Fatalf("dlca sweep: exit %d\n%s", code, errs)
	}
	page, err := os.ReadFile(filepath.Join(dir, "results.md"))
	if err != nil {
		t.Fatal(err)
	}
	md := string(page)
	if !strings.Contains(md, "| run | lr | seed | experiment |") {
		t.Errorf("results.md has no lr and seed columns:\n%s", md)
	}
	for _, name := range []string{"lr-0.05_seed-1", "lr-0.05_seed-2", "lr-0.1_seed-1", "lr-0.1_seed-2"} {
		if !strings.Contains(md, "| "+name+" | ") {
			t.Errorf("results.md has no row for run %s", name)
		}
	}
	// The paper's other experiments are not this sweep's.
	for _, other := range []string{"lizard", "gameoflife", "colour-g", "no saved run"} {
		if strings.Contains(md, other) {
			t.Errorf("results.md names %q, which is not in the sweep:\n%s", other, md)
		}
	}
	// Each group's mean final hard loss, from the runs' own records.
	mean := func(runs ...string) string {
		sum := 0.0
		for _, r := range runs {
			var rec struct {
				Final struct {
					HardLoss float64 `json:"hard_loss"`
				} `json:"final"`
			}
			b, err := os.ReadFile(filepath.Join(dir, "runs", r, "run.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &rec); err != nil {
				t.Fatal(err)
			}
			sum += rec.Final.HardLoss
		}
		return fmt.Sprintf("%.1f;", sum/float64(len(runs)))
	}
	for _, g := range []struct{ section, row, mean string }{
		{"## By lr", "| 0.05 | 2 |", mean("lr-0.05_seed-1", "lr-0.05_seed-2")},
		{"## By lr", "| 0.1 | 2 |", mean("lr-0.1_seed-1", "lr-0.1_seed-2")},
		{"## By seed", "| 1 | 2 |", mean("lr-0.05_seed-1", "lr-0.1_seed-1")},
		{"## By seed", "| 2 | 2 |", mean("lr-0.05_seed-2", "lr-0.1_seed-2")},
	} {
		_, section, ok := strings.Cut(md, g.section)
		if !ok {
			t.Fatalf("results.md has no section %q:\n%s", g.section, md)
		}
		section, _, _ = strings.Cut(section, "\n## ")
		var row string
		for l := range strings.Lines(section) {
			if strings.HasPrefix(l, g.row) {
				row = l
			}
		}
		if row == "" || !strings.Contains(row, " "+g.mean) {
			t.Errorf("%s: row %q, want one starting %q with mean final hard loss %s", g.section, row, g.row, g.mean)
		}
	}
	for _, name := range []string{"loss-by-lr.png", "outcome-by-lr.png", "loss-by-seed.png", "outcome-by-seed.png"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("no plot %s: %v", name, err)
		}
		if _, err := png.Decode(bytes.NewReader(b)); err != nil {
			t.Errorf("%s is not a PNG: %v", name, err)
		}
		if !strings.Contains(md, "]("+name+")") {
			t.Errorf("results.md does not show %s", name)
		}
	}
}

// TestSweepGroups: a group's summary (counted by hand below), values
// ordered as numbers where they are, and a [[runs]] run without a key that
// another run sets shown with the base's value.
func TestSweepGroups(t *testing.T) {
	rec := func(first int, hard float64, gates int, passed ...bool) runRecord {
		r := runRecord{Experiment: "x", FirstHard0: first}
		r.Final.HardLoss, r.Final.ActiveGates = hard, gates
		for _, p := range passed {
			r.Checks = append(r.Checks, experiments.CheckResult{Name: "c", Passed: p})
		}
		return r
	}
	// Reached 0: 100, 300, 200 (median 200); passed every check: the
	// first and the third; final hard loss 0, 6, 0, 3: mean 2.25, best 0.
	got := groupSummary([]runRecord{rec(100, 0, 20, true, true), rec(0, 6, 31, true, false), rec(300, 0, 25, true), rec(200, 3, 18)})
	if want := "4 | 3 | 200 | 2 | 2.2; 0 | 18 to 31"; got != want {
		t.Errorf("groupSummary = %q, want %q", got, want)
	}
	if got := groupSummary([]runRecord{rec(0, 5, 1), rec(10, 0, 1), rec(30, 0, 1)}); !strings.HasPrefix(got, "3 | 2 | 20 |") {
		t.Errorf("median of 10 and 30: %q, want 20", got)
	}
	p := &sweepPage{base: "b", keys: []string{"lr", "steps"}, total: 3, runs: []sweepRun{
		{name: "lr-0.1", varied: map[string]string{"lr": "0.1"}, rec: rec(0, 1, 1)},
		{name: "lr-0.05_steps-20", varied: map[string]string{"lr": "0.05", "steps": "20"}, rec: rec(0, 2, 1)},
		{name: "lr-1e-3", varied: map[string]string{"lr": "1e-3"}, rec: rec(0, 3, 1)},
	}}
	if got := p.values("lr"); !slices.Equal(got, []string{"1e-3", "0.05", "0.1"}) {
		t.Errorf("values of lr: %v, want them in numeric order", got)
	}
	var b bytes.Buffer
	writeSweepResults(&b, p, false)
	if md := b.String(); !strings.Contains(md, "| lr-0.1 | 0.1 | (the base's) |") || !strings.Contains(md, "| (the base's) | 2 |") {
		t.Errorf("a run without steps is not shown with the base's value:\n%s", md)
	}
}
