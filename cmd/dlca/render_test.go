package main

import (
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gonum.org/v1/plot"

	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/experiments"
	"github.com/dlca/dlca/gates"
)

// TestLossPlotSettings: the loss axis is logarithmic with labelled ticks
// on a long and on a short range, the hard loss's line breaks at the
// iterations where it is 0, the first of which is the marked one, and the
// picture is written.
func TestLossPlotSettings(t *testing.T) {
	var ms []bptt.Metrics
	hard := []float64{40, 30, 0, 5, 0, 0, 2}
	for i, h := range hard {
		ms = append(ms, bptt.Metrics{Iteration: i + 1, SoftLoss: 50 / float64(i+1), HardLoss: h})
	}
	p, err := lossPlot("t", ms)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.Y.Scale.(plot.LogScale); !ok {
		t.Errorf("loss axis scale %T, want plot.LogScale", p.Y.Scale)
	}
	labels := func(lo, hi float64) []string {
		var l []string
		for _, tk := range p.Y.Tick.Marker.Ticks(lo, hi) {
			if tk.Label != "" {
				l = append(l, tk.Label)
			}
		}
		return l
	}
	if got := labels(0.05, 300); !slices.Equal(got, []string{"0.1", "1", "10", "100"}) {
		t.Errorf("ticks on 0.05..300: labels %v, want the powers of ten", got)
	}
	if got := labels(3, 40); !slices.Equal(got, []string{"5", "10", "20"}) {
		t.Errorf("ticks on 3..40: labels %v, want 5 10 20", got)
	}
	runs := positiveRuns(ms, func(m bptt.Metrics) float64 { return m.HardLoss })
	if len(runs) != 3 || len(runs[0]) != 2 || runs[1][0].X != 4 || runs[2][0].X != 7 {
		t.Errorf("hard loss runs %v, want iterations 1-2, 4 and 7", runs)
	}
	if got := firstHardZero(ms); got != 3 {
		t.Errorf("first hard loss 0 at %d, want 3", got)
	}
	if err := saveLossPlot(filepath.Join(t.TempDir(), "loss.png"), "t", ms); err != nil {
		t.Fatal(err)
	}
	zero := []bptt.Metrics{{Iteration: 1}}
	if p, err := lossPlot("t", zero); err != nil || p.Y.Scale == (plot.LogScale{}) {
		t.Errorf("losses all 0: scale %T, %v; want a linear axis", p.Y.Scale, err)
	}
}

// TestGateHistogram: the counts gates.png draws are, for each network, a
// histogram of each gate's most probable op computed here from the logits
// of a model with random logits, and they cover every gate.
func TestGateHistogram(t *testing.T) {
	_, _, m := untrainedModel(t, "checkerboard-small")
	rng := rand.New(rand.NewPCG(7, 0))
	for _, l := range m.Layers() {
		d := l.Logits.Data32()
		for i := range d {
			d[i] = float32(rng.NormFloat64())
		}
	}
	perception, update := networkGates(m)
	for _, tc := range []struct {
		name string
		got  gateCounts
		net  []*gates.Layer
	}{{"perception", perception, m.Perception}, {"update", update, m.Update}} {
		var want gateCounts
		for _, l := range tc.net {
			d := l.Logits.Data32()
			for g := 0; g < len(d); g += gates.NumOps {
				best := 0
				for op := range gates.NumOps {
					if d[g+op] > d[g+best] {
						best = op
					}
				}
				want[best]++
			}
		}
		if tc.got != want {
			t.Errorf("%s: counts %v, want %v", tc.name, tc.got, want)
		}
	}
	total := 0
	for op := range gates.NumOps {
		total += perception[op] + update[op]
	}
	if total != m.NumGates() || perception[gates.A] == total {
		t.Errorf("%d gates counted, the model has %d", total, m.NumGates())
	}
	if err := saveGatePlot(filepath.Join(t.TempDir(), "gates.png"), "t", m); err != nil {
		t.Fatal(err)
	}
}

// TestFinalPNGIsLastFrame: a check's animation and its -final.png show the
// same last frame, captioned with the last step.
func TestFinalPNGIsLastFrame(t *testing.T) {
	path, _, _ := untrainedModel(t, "checkerboard-small")
	dir := t.TempDir()
	runCmd("check", "-experiment", "checkerboard-small", "-model", path, "-gifs", dir)
	g := decodeGIF(t, filepath.Join(dir, "generalise.gif"))
	last := g.Image[len(g.Image)-1]
	f, err := os.Open(filepath.Join(dir, "generalise-final.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds() != last.Bounds() || !sameRegion(img, last, last.Bounds()) {
		t.Error("generalise-final.png is not the animation's last frame")
	}
	if sameRegion(img, g.Image[0], last.Bounds()) {
		t.Error("the last frame equals the first")
	}
}

// TestEvalPNGIsLastFrame: eval -png writes the GIF's last frame, with or
// without -gif, and the picture is of the rollout's last state.
func TestEvalPNGIsLastFrame(t *testing.T) {
	path, _, _ := untrainedModel(t, "checkerboard-small")
	dir := t.TempDir()
	gifPath, withGIF, alone := filepath.Join(dir, "e.gif"), filepath.Join(dir, "with.png"), filepath.Join(dir, "alone.png")
	args := []string{"eval", "-experiment", "checkerboard-small", "-model", path, "-size", "12", "-steps", "5"}
	for _, out := range [][]string{{"-gif", gifPath, "-png", withGIF}, {"-png", alone}} {
		if code, _, stderr := runCmd(append(slices.Clone(args), out...)...); code != 0 {
			t.Fatalf("eval %v: exit %d: %s", out, code, stderr)
		}
	}
	g := decodeGIF(t, gifPath)
	last := g.Image[len(g.Image)-1]
	for _, p := range []string{withGIF, alone} {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if img.Bounds() != last.Bounds() || !sameRegion(img, last, last.Bounds()) {
			t.Errorf("%s is not the GIF's last frame", filepath.Base(p))
		}
		if sameRegion(img, g.Image[0], last.Bounds()) {
			t.Errorf("%s equals the first frame", filepath.Base(p))
		}
	}
}

// TestLossTicks: a log axis labels its powers of ten (and 2 and 5 times
// them over at most three decades), and every tick of a range inside one
// decade, so that the loss axis always has labels to read.
func TestLossTicks(t *testing.T) {
	labels := func(lo, hi float64) []string {
		var ls []string
		for _, tk := range (lossTicks{}).Ticks(lo, hi) {
			if tk.Label != "" {
				ls = append(ls, tk.Label)
			}
		}
		return ls
	}
	for _, c := range []struct {
		lo, hi float64
		want   []string
	}{
		{30, 60, []string{"30", "40", "50", "60"}},
		{0.5, 30, []string{"0.5", "1", "2", "5", "10", "20"}},
		{0.001, 100, []string{"0.001", "0.01", "0.1", "1", "10", "100"}},
	} {
		if got := labels(c.lo, c.hi); !slices.Equal(got, c.want) {
			t.Errorf("ticks of [%v, %v] labelled %v, want %v", c.lo, c.hi, got, c.want)
		}
	}
}

// TestLossPlotMarksMethodChanges: a run trained with a change to the
// paper's method gets a mark where each change starts (the state penalty
// from iteration 1 when state_penalty_from is left out), the paper's
// method none, and the marks are drawn.
func TestLossPlotMarksMethodChanges(t *testing.T) {
	r := runRecord{Config: &experiments.Config{StraightThroughFrom: 2000, StatePenalty: 0.01, StatePenaltyFrom: 3001}}
	want := []methodChange{{2000, "straight-through", "straight"}, {3001, "state penalty 0.01", "penalty0.01from"}}
	if got := methodChanges(r); !slices.Equal(got, want) {
		t.Errorf("changes %v, want %v", got, want)
	}
	r.Config = &experiments.Config{StatePenalty: 0.5}
	if got := methodChanges(r); !slices.Equal(got, []methodChange{{1, "state penalty 0.5", "penalty0.5from"}}) {
		t.Errorf("penalty without a first iteration: changes %v, want it from iteration 1", got)
	}
	for _, c := range []*experiments.Config{nil, {}} {
		if got := methodChanges(runRecord{Config: c}); len(got) != 0 {
			t.Errorf("the paper's method (config %v): changes %v, want none", c, got)
		}
	}
	var ms []bptt.Metrics
	for i := range 100 {
		ms = append(ms, bptt.Metrics{Iteration: i + 1, SoftLoss: 100 / float64(i+1), HardLoss: 50})
	}
	dir := t.TempDir()
	plain, marked := filepath.Join(dir, "plain.png"), filepath.Join(dir, "marked.png")
	if err := saveLossPlot(plain, "t", ms); err != nil {
		t.Fatal(err)
	}
	if err := saveLossPlot(marked, "t", ms, methodChange{60, "state penalty 0.01", "penalty0.01from"}); err != nil {
		t.Fatal(err)
	}
	if a, b := mustRead(t, plain), mustRead(t, marked); slices.Equal(a, b) {
		t.Error("the plot with a change to the method is the plot without it")
	}
}

// TestCurvePlot: a check's error curve (the robustness run's) is drawn as
// a PNG, 16 x 8 cm: wider than high.
func TestCurvePlot(t *testing.T) {
	path := filepath.Join(t.TempDir(), "curve.png")
	if err := saveCurvePlot(path, "robustness", "error", []float64{3, 1, 4, 1, 5}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil {
		t.Fatalf("the plot is not a PNG: %v", err)
	}
	if cfg.Width <= cfg.Height {
		t.Errorf("the plot is %dx%d, want wider than high (16 x 8 cm)", cfg.Width, cfg.Height)
	}
}
