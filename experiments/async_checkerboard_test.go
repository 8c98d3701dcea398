package experiments

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/gates"
)

func TestAsyncCheckerboardSettings(t *testing.T) {
	e, err := Get("checkerboard-async")
	if err != nil {
		t.Fatal(err)
	}
	// PAPER.md section 3: 14x14, 50 steps, batch 1, 800 iterations, [256]x14 then 128..8.
	if !e.Async || e.Model.Height != 14 || e.Steps != 50 || e.Batch != 1 || e.Iterations != 800 || len(e.Model.UpdateLayers) != 20 || e.Model.FireRate != 0.6 {
		t.Fatalf("settings differ from the paper: %+v", e)
	}
	names := map[string]bool{}
	for _, c := range e.Checks {
		names[c.Name] = true
	}
	for _, n := range []string{"self-healing", "robustness"} {
		if !names[n] {
			t.Errorf("check %s missing", n)
		}
	}
}

// constantModel returns a model of e whose every gate is op: with FALSE its
// circuit turns every cell that fires to 0.
func constantModel(t *testing.T, e *Experiment, op gates.Op) *dlca.Model {
	t.Helper()
	m, err := dlca.New(e.Model, autograd.Float32)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range m.Params() {
		for i := range p.Len() {
			v := 0.0
			if i%gates.NumOps == int(op) {
				v = 10
			}
			p.SetAt(i, v)
		}
	}
	return m
}

// TestRobustnessRun: a rule that writes 0 everywhere ends with every target
// 1 wrong, which on a 2x2-square checkerboard is half the cells, and fails
// the check; against an all-zero target the same rule is never wrong, even
// with squares zeroed, and passes.
func TestRobustnessRun(t *testing.T) {
	e, _ := Get("checkerboard-async")
	m := constantModel(t, e, gates.False)
	curve, frames := RobustnessRun(e, m, 32, 200, 10)
	if len(curve) != 200 || len(frames) != 1+200/robustnessFrameEvery {
		t.Fatalf("%d errors and %d frames, want 200 and %d", len(curve), len(frames), 1+200/robustnessFrameEvery)
	}
	if got := curve[len(curve)-1]; got != 32*32/2 {
		t.Fatalf("final error %v, want %d (every 1 of the target missing)", got, 32*32/2)
	}
	check := robustnessCheck(32, 200, 10, 0)
	if r := check.Run(e, m); r.Passed {
		t.Fatalf("a rule that forgets the pattern passed: %s", r.Detail)
	}
	blank := *e
	blank.Target = func(h, w int) []float32 { return make([]float32, h*w) }
	r := check.Run(&blank, m)
	if !r.Passed || r.Wrong != 0 || len(r.Curve) != 200 {
		t.Fatalf("all-zero target: %s (curve of %d)", r.Detail, len(r.Curve))
	}

}

// TestRobustnessDamage: a rule that writes 1 everywhere, every cell firing,
// is wrong after each step exactly where the damage zeroed, so the curve is
// the damaged area. The notebook's corner is uniform on the whole grid and
// the square clipped at the edge: on 32x32 a side of 10 keeps
// min(10, 32 - c) cells for corner c in 0..31, on average 275/32, so the
// mean area is (275/32)^2 = 73.9, and no step zeroes more than 100.
func TestRobustnessDamage(t *testing.T) {
	e, _ := Get("checkerboard-async")
	m := constantModel(t, e, gates.True)
	m.Config.FireRate = 1
	ones := *e
	ones.Target = func(h, w int) []float32 {
		t := make([]float32, h*w)
		for i := range t {
			t[i] = 1
		}
		return t
	}
	curve, _ := RobustnessRun(&ones, m, 32, 2000, 10)
	clipped := 0
	for _, v := range curve {
		if v > 100 || v < 1 {
			t.Fatalf("a step's damage covers %v cells, want 1 to 100", v)
		}
		if v < 100 {
			clipped++
		}
	}
	if got := mean(curve); math.Abs(got-73.9) > 4 {
		t.Errorf("mean damaged area %.1f, want about 73.9 (clipped squares)", got)
	}
	if clipped == 0 {
		t.Error("no square was clipped at the edge")
	}
	r := robustnessCheck(32, 2000, 10, 80).Run(&ones, m)
	if !r.Passed || !strings.Contains(r.Detail, "over all 2000 steps") || !strings.Contains(r.Detail, "allowed 80") {
		t.Errorf("robustness against allow 80: %s", r.Detail)
	}
	if robustnessCheck(32, 2000, 10, 60).Run(&ones, m).Passed {
		t.Error("a mean error of about 74 passed a bar of 60")
	}
}

// TestFaultCheck: a rule that writes 1 everywhere against an all-zero
// target is wrong in every cell outside the hole, after steps and after
// twice as many; it passes only when allowed that many.
func TestFaultCheck(t *testing.T) {
	e, _ := Get("checkerboard")
	m := constantModel(t, e, gates.True)
	blank := *e
	blank.Target = func(h, w int) []float32 { return make([]float32, h*w) }
	outside := 32*32 - 8*8
	r := faultCheck(32, 5, 8, 14).Run(&blank, m)
	want := fmt.Sprintf("%d wrong cells after 5 steps (allowed 14, the paper's run)", outside)
	if r.Passed || r.Wrong != outside || !strings.Contains(r.Detail, want) || !strings.Contains(r.Detail, fmt.Sprintf("; %d after 10 steps (0 expected)", outside)) || len(r.Frames) != 11 {
		t.Errorf("fault check: %s (%d frames)", r.Detail, len(r.Frames))
	}
	if r := faultCheck(32, 5, 8, outside).Run(&blank, m); !r.Passed {
		t.Errorf("allowed %d, yet: %s", outside, r.Detail)
	}
}

// TestAsyncCheck: a rule of pass-through gates only copies bits around, so
// running it asynchronously does not form the checkerboard.
func TestAsyncCheck(t *testing.T) {
	e, _ := Get("checkerboard")
	m := constantModel(t, e, gates.A)
	r := AsyncCheck(16, 10).Run(e, m)
	if r.Passed || r.Wrong == 0 || len(r.Frames) != 11 {
		t.Fatalf("pass-through rule: %s, %d frames", r.Detail, len(r.Frames))
	}
}

// TestEitherPhase: the wrapped check keeps the phase with fewer wrong cells
// and says when it is the inverted one.
func TestEitherPhase(t *testing.T) {
	e, _ := Get("checkerboard-async")
	// count returns a check whose wrong cells are the top-left 2x2 cells
	// whose target is v: the checkerboard's top-left square is 0.
	count := func(v float32) Check {
		return Check{Name: "count", Run: func(e *Experiment, _ *dlca.Model) CheckResult {
			n := 0
			for _, x := range e.Target(2, 2) {
				if x == v {
					n++
				}
			}
			return CheckResult{Name: "count", Wrong: n, Detail: "d"}
		}}
	}
	for _, tc := range []struct {
		v      float32
		detail string
	}{{1, "d"}, {0, "d (against the inverted checkerboard)"}} {
		r := eitherPhase(count(tc.v))[0].Run(e, nil)
		if r.Wrong != 0 || r.Detail != tc.detail {
			t.Errorf("counting target cells = %v: %d wrong, detail %q; want 0 and %q", tc.v, r.Wrong, r.Detail, tc.detail)
		}
	}
}
