package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestTrainLayerStats: -layer-stats 2 records every layer's statistics in
// run.json at iterations 1, 2 and 4 of 4 (and keeps them across a resume),
// draws them (layers-grad.png, layers-undecided.png, layers-nograd.png),
// and changes nothing
// else: the model file is byte for byte that of a run
// without the flag, whose run.json holds no layer statistics and is the
// same record but for the times. A negative interval is refused.
func TestTrainLayerStats(t *testing.T) {
	dir := t.TempDir()
	plain, stats, parts := filepath.Join(dir, "plain"), filepath.Join(dir, "stats"), filepath.Join(dir, "parts")
	trainSmall(t, plain, 4)
	trainSmall(t, stats, 4, "-layer-stats", "2")
	trainSmall(t, parts, 2, "-layer-stats", "2", "-checkpoint-every", "2")
	if code, _, errs := runCmd("train", "-quiet", "-resume", filepath.Join(parts, "checkpoint.json"), "-iterations", "4", "-layer-stats", "2"); code != 0 {
		t.Fatalf("resume: exit %d: %s", code, errs)
	}

	model := func(dir string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, "model.json"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if !bytes.Equal(model(plain), model(stats)) {
		t.Error("-layer-stats changed the model file")
	}
	raw, err := os.ReadFile(filepath.Join(plain, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte(`"layers"`)) {
		t.Error("run.json of a run without -layer-stats holds layer statistics")
	}

	for _, name := range []string{"layers-grad.png", "layers-undecided.png", "layers-nograd.png"} {
		if _, err := os.Stat(filepath.Join(plain, name)); !os.IsNotExist(err) {
			t.Errorf("a run without -layer-stats wrote %s", name)
		}
		if b, err := os.ReadFile(filepath.Join(stats, name)); err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
			t.Errorf("%s of the -layer-stats run: not a PNG (%v)", name, err)
		}
	}
	for _, d := range []string{stats, parts} {
		rec := runRecordOf(t, d)
		var at []int
		for _, m := range rec.Metrics {
			if m.Layers == nil {
				continue
			}
			at = append(at, m.Iteration)
			if len(m.Layers) != 10 || m.Layers[0].Layer != "perception/0" || m.Layers[9].Layer != "update/6" || m.Layers[0].GradNorm <= 0 {
				t.Errorf("%s, iteration %d: layer statistics %+v", filepath.Base(d), m.Iteration, m.Layers)
			}
		}
		if want := []int{1, 2, 4}; !slices.Equal(at, want) {
			t.Errorf("%s: layer statistics at iterations %v, want %v", filepath.Base(d), at, want)
		}
	}

	// Without the statistics and the times, the records are the same.
	strip := func(d string) string {
		rec := runRecordOf(t, d)
		rec.WallSeconds, rec.Final.Time, rec.Final.Layers = 0, 0, nil
		for i := range rec.Metrics {
			rec.Metrics[i].Time, rec.Metrics[i].Layers = 0, nil
		}
		b, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if a, b := strip(plain), strip(stats); a != b {
		t.Errorf("run.json differs beyond times and layer statistics:\n%s\n%s", a, b)
	}

	code, _, errs := runCmd("train", "-experiment", "checkerboard-small", "-quiet", "-layer-stats", "-1", "-out", filepath.Join(dir, "bad"))
	if code == 0 || !strings.Contains(errs, "-layer-stats -1: must not be negative") {
		t.Errorf("-layer-stats -1: exit %d, %q", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "bad")); !os.IsNotExist(err) {
		t.Error("the refused run left its folder behind")
	}
}
