package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrainFloat64: -float64 trains in float64 (recorded in run.json, kept
// by a resumed run): its losses follow the float32 run's to rounding but
// are not the same numbers; a float32 run records no dtype, and -float64 on
// a float32 checkpoint is refused.
func TestTrainFloat64(t *testing.T) {
	dir := t.TempDir()
	f32, f64 := filepath.Join(dir, "f32"), filepath.Join(dir, "f64")
	trainSmall(t, f32, 4)
	trainSmall(t, f64, 2, "-float64", "-checkpoint-every", "2")
	if code, _, errs := runCmd("train", "-quiet", "-resume", filepath.Join(f64, "checkpoint.json"), "-iterations", "4"); code != 0 {
		t.Fatalf("resume: exit %d: %s", code, errs)
	}
	a, b := runRecordOf(t, f32), runRecordOf(t, f64)
	if a.DType != "" || b.DType != "float64" {
		t.Fatalf("dtypes recorded: %q and %q, want none and float64", a.DType, b.DType)
	}
	if raw, _ := os.ReadFile(filepath.Join(f32, "run.json")); bytes.Contains(raw, []byte(`"dtype"`)) {
		t.Error("a float32 run's run.json names a dtype")
	}
	same := true
	for i := range a.Metrics {
		x, y := a.Metrics[i].SoftLoss, b.Metrics[i].SoftLoss
		if math.Abs(x-y) > 1e-3*math.Abs(x) {
			t.Errorf("iteration %d: soft loss %v in float32, %v in float64", i+1, x, y)
		}
		same = same && x == y
	}
	if same {
		t.Error("the float64 run's losses are the float32 run's to the bit: it did not train in float64")
	}
	code, _, errs := runCmd("train", "-quiet", "-float64", "-resume", filepath.Join(f32, "checkpoint.json"), "-iterations", "5")
	if code == 0 || !strings.Contains(errs, "-float64 contradicts the checkpoint") {
		t.Errorf("-float64 on a float32 checkpoint: exit %d, %q", code, errs)
	}
}
