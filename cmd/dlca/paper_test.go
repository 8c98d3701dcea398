package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/experiments"
)

// TestResultsPaperRows: every paper experiment gets the paper's row, and a
// row saying so when no run of it was given; runs sit under their paper row.
func TestResultsPaperRows(t *testing.T) {
	var buf bytes.Buffer
	writeResults(&buf, []runRecord{{Experiment: "checkerboard-small", Seed: 1}, {Experiment: "gameoflife", Seed: 23, WiringSeed: 23, Iterations: 3000}}, nil)
	md := buf.String()
	for _, p := range experiments.Paper {
		if !strings.Contains(md, "| **"+p.Experiment+" (paper)** |") {
			t.Errorf("no paper row for %s", p.Experiment)
		}
	}
	if !strings.Contains(md, "| lizard | | | | | no saved run |") || strings.Contains(md, "| gameoflife | | | | | no saved run |") {
		t.Errorf("rows of runs not done wrong:\n%s", md)
	}
	life := strings.Index(md, "| gameoflife | pcg | 23 | 23 | 3000 |")
	if life < strings.Index(md, "**gameoflife (paper)**") || life > strings.Index(md, "**checkerboard (paper)**") {
		t.Errorf("the gameoflife run is not under its paper row:\n%s", md)
	}
	if strings.Index(md, "| checkerboard-small | pcg | 1 |") < strings.Index(md, "**colour-g (paper)**") {
		t.Errorf("a run of an experiment outside the paper comes before the paper's:\n%s", md)
	}
}

func TestPlanPictures(t *testing.T) {
	run, img := t.TempDir(), t.TempDir()
	write := func(name string, n int) {
		if err := os.WriteFile(filepath.Join(run, name), make([]byte, n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("loss.png", 10)
	write("big.gif", maxPictureBytes+1)
	write("model.json", 10)
	if err := os.Mkdir(filepath.Join(run, "dir.png"), 0o755); err != nil {
		t.Fatal(err)
	}
	copies, links, err := planPictures(run, img, filepath.Dir(img), "x")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"(big.gif: 250 KB, not copied)", "![loss](" + filepath.Base(img) + "/x-loss.png)"}
	if strings.Join(links, "\n") != strings.Join(want, "\n") {
		t.Fatalf("links %q, want %q", links, want)
	}
	wantCopies := []pictureCopy{{src: filepath.Join(run, "loss.png"), dst: filepath.Join(img, "x-loss.png")}}
	if !slices.Equal(copies, wantCopies) {
		t.Fatalf("copies %v, want %v", copies, wantCopies)
	}
	if entries, _ := os.ReadDir(img); len(entries) != 0 {
		t.Fatalf("planning wrote %d files", len(entries))
	}
	if err := copies[0].copy(context.Background()); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(img, "x-loss.png")); err != nil || len(b) != 10 {
		t.Fatalf("loss.png not copied: %d bytes, %v", len(b), err)
	}
}

func TestTrainingSeconds(t *testing.T) {
	its := []bptt.Metrics{{Time: 2 * time.Second}, {Time: 3 * time.Second}}
	if got := trainingSeconds(runRecord{WallSeconds: 1, Metrics: its}); got != 5 {
		t.Fatalf("resumed run: %v s, want the 5 s its iterations took", got)
	}
	if got := trainingSeconds(runRecord{WallSeconds: 7, Metrics: its}); got != 7 {
		t.Fatalf("whole run: %v s, want its wall time 7 s", got)
	}
}

// TestGIFFrames: long rollouts are thinned to at most the limit, keeping
// the first and last state and an even stride; short ones are kept whole.
func TestGIFFrames(t *testing.T) {
	for _, tc := range []struct{ n, limit int }{{0, 60}, {1, 60}, {13, 60}, {60, 60}, {61, 60}, {201, 60}, {101, 60}, {4001, 60}, {7, 2}, {9, 1}} {
		idx := gifFrames(tc.n, tc.limit)
		if tc.n == 0 {
			if len(idx) != 0 {
				t.Errorf("n=0: %v", idx)
			}
			continue
		}
		if len(idx) > max(tc.limit, 2) || idx[0] != 0 || idx[len(idx)-1] != tc.n-1 {
			t.Errorf("n=%d limit=%d: %d frames, first %d, last %d", tc.n, tc.limit, len(idx), idx[0], idx[len(idx)-1])
		}
		if tc.n <= tc.limit && len(idx) != tc.n {
			t.Errorf("n=%d limit=%d: %d frames, want all", tc.n, tc.limit, len(idx))
		}
		for i := 1; i < len(idx)-1; i++ {
			if idx[i]-idx[i-1] != idx[1]-idx[0] {
				t.Errorf("n=%d: uneven stride %v", tc.n, idx)
				break
			}
		}
		if tc.n > tc.limit && len(idx) < tc.limit/2 {
			t.Errorf("n=%d limit=%d: only %d frames kept", tc.n, tc.limit, len(idx))
		}
	}
}

// TestResultsSummary: the summary over seeds counts, per experiment and
// iteration count, the runs that reached hard loss 0 and passed every
// check, and names the best run's wiring seeds.
func TestResultsSummary(t *testing.T) {
	pass := []experiments.CheckResult{{Name: "a", Passed: true}, {Name: "b", Passed: true}}
	fail := []experiments.CheckResult{{Name: "a", Passed: true}, {Name: "b", Passed: false}}
	run := func(exp string, wiring uint64, iters, first int, hard float64, active int, checks []experiments.CheckResult) runRecord {
		return runRecord{Experiment: exp, Seed: 23, WiringSeed: wiring, Iterations: iters, FirstHard0: first,
			Final: bptt.Metrics{HardLoss: hard, ActiveGates: active}, Checks: checks}
	}
	runs := []runRecord{
		run("lizard", 23, 3500, 0, 131, 965, fail),
		run("lizard", 3, 3500, 0, 13, 527, fail),
		run("lizard", 5, 3500, 900, 0, 600, pass),
		run("lizard", 7, 3500, 1200, 0, 700, fail),
		run("lizard", 3, 7000, 0, 9, 540, fail),
		run("gameoflife", 23, 3000, 1521, 0, 357, pass),
	}
	var buf bytes.Buffer
	writeResults(&buf, runs, nil)
	md := buf.String()
	for _, want := range []string{
		"| lizard | pcg | 3500 | 4 | 2 | 1 | 0 (5, 7) | 527 to 965 |",
		"| lizard | pcg | 7000 | 1 | 0 | 0 | 9 (3) | 540 to 540 |",
		"| gameoflife | pcg | 3000 | 1 | 1 | 1 | 0 (23) | 357 to 357 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("summary lacks %q:\n%s", want, md)
		}
	}
	if row := strings.Index(md, "| lizard | pcg | 23 | 3 | 7000 |"); row < 0 || strings.Index(md, "## Over seeds") < row {
		t.Errorf("the summary comes before the runs' rows:\n%s", md)
	}
}
