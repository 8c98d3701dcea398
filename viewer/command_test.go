package viewer_test

import (
	"bytes"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/experiments"
	"github.com/dlca/dlca/viewer/painter"
)

// TestDlcaViewCommand runs the real command the way the documentation
// does: user mistakes, a replay picture and a short live training run.
func TestDlcaViewCommand(t *testing.T) {
	needDisplay(t)
	bin := binary(t, "dlca-view")
	dir := t.TempDir()
	run := func(args ...string) (string, error) {
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.String(), err
	}

	t.Run("mistakes", func(t *testing.T) {
		for _, c := range []struct {
			args []string
			want string
		}{
			{nil, "give either -train EXPERIMENT"},
			{[]string{"-model", "missing.json"}, "missing.json"},
			{[]string{"-train", "no-such-experiment"}, "no-such-experiment"},
			{[]string{"-train", "missing.toml"}, "cannot read the experiment file"},
			{[]string{"-model", "m.json", "-screenshot-after", "3"}, "go together"},
			{[]string{"-train", "checkerboard-small", "-channel", "8"}, "-channel 8"},
		} {
			out, err := run(c.args...)
			if err == nil || !strings.Contains(out, c.want) || strings.Contains(out, "panic") {
				t.Errorf("dlca-view %v: %v\n%s\nwant a failure saying %q", c.args, err, out, c.want)
			}
		}
	})

	t.Run("replay picture", func(t *testing.T) {
		if err := tinyModel(t).Save(filepath.Join(dir, "m.json")); err != nil {
			t.Fatal(err)
		}
		out, err := run("-model", "m.json", "-rows", "9", "-cols", "11", "-hard", "-width", "400", "-height", "300",
			"-screenshot-after", "5", "-screenshot", "shot.png")
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		f, err := os.Open(filepath.Join(dir, "shot.png"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		img, err := png.Decode(f)
		if err != nil {
			t.Fatal(err)
		}
		if sz := img.Bounds().Size(); sz.X != 400 || sz.Y != 300 {
			t.Errorf("screenshot of %v, want the 400x300 window", sz)
		}
	})

	t.Run("live training keeps model and checkpoint", func(t *testing.T) {
		out, err := run("-train", "checkerboard-small", "-iterations", "3", "-out", "live",
			"-screenshot-after", "1", "-screenshot", "live.png")
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if !strings.Contains(out, "model saved to live/model.json") {
			t.Errorf("output %q does not say where the model went", out)
		}
		ck, err := bptt.LoadCheckpoint(filepath.Join(dir, "live", "checkpoint.json"))
		if err != nil {
			t.Fatal(err)
		}
		if ck.Iteration != 3 || ck.Label != "checkerboard-small" {
			t.Errorf("checkpoint %q at iteration %d, want checkerboard-small at 3", ck.Label, ck.Iteration)
		}
		if _, err := dlca.Load(filepath.Join(dir, "live", "model.json")); err != nil {
			t.Error(err)
		}
	})

	// An experiment file trains as dlca train -config trains it; the model
	// records it, and a replay runs the model as that experiment (its
	// initial state, its target's wrong cells framed) unless told otherwise.
	t.Run("experiment file: train, then replay as it", func(t *testing.T) {
		cfg, err := experiments.Builtin("checkerboard-small")
		if err != nil {
			t.Fatal(err)
		}
		cfg.Name = "my-board"
		var text strings.Builder
		if err := cfg.WriteTOML(&text); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "my-board.toml"), []byte(text.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := run("-train", "my-board.toml", "-iterations", "2", "-out", "mine",
			"-screenshot-after", "1", "-screenshot", "mine.png")
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		ck, err := bptt.LoadCheckpoint(filepath.Join(dir, "mine", "checkpoint.json"))
		if err != nil {
			t.Fatal(err)
		}
		if ck.Iteration != 2 || ck.Label != "my-board" {
			t.Errorf("checkpoint %q at iteration %d, want my-board at 2", ck.Label, ck.Iteration)
		}
		trained := filepath.Join(dir, "mine", "model.json")
		m, err := dlca.Load(trained)
		if err != nil {
			t.Fatal(err)
		}
		rec, err := experiments.FromRecord(m.Experiment, trained)
		if err != nil || rec.Name != "my-board" || rec.Iterations != 2 {
			t.Fatalf("the model records %+v (%v), want my-board with 2 iterations", rec, err)
		}
		m.Experiment = nil
		if err := m.Save(filepath.Join(dir, "bare.json")); err != nil {
			t.Fatal(err)
		}
		if out, err := run("-model", "bare.json", "-experiment", "missing.toml"); err == nil || !strings.Contains(out, "cannot read the experiment file") {
			t.Errorf("-experiment missing.toml: %v\n%s\nwant a failure naming the file", err, out)
		}
		// After 2 iterations the rule is far from the checkerboard: a
		// replay against its target frames wrong cells, in WrongColour.
		for _, c := range []struct {
			args  []string
			wrong bool
		}{
			{[]string{"-model", "mine/model.json"}, true},
			{[]string{"-model", "bare.json"}, false},
			{[]string{"-model", "bare.json", "-experiment", "my-board.toml"}, true},
		} {
			out, err := run(append(c.args, "-width", "400", "-height", "300", "-screenshot-after", "5", "-screenshot", "replay.png")...)
			if err != nil {
				t.Fatalf("dlca-view %v: %v\n%s", c.args, err, out)
			}
			if got := hasColour(t, filepath.Join(dir, "replay.png"), painter.WrongColour); got != c.wrong {
				t.Errorf("dlca-view %v: wrong cells framed = %v, want %v", c.args, got, c.wrong)
			}
		}
	})
}

// hasColour says whether the PNG picture at path has a pixel of colour c.
func hasColour(t *testing.T, path string, c color.RGBA) bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if color.RGBAModel.Convert(img.At(x, y)) == c {
				return true
			}
		}
	}
	return false
}
