package viewer_test

import (
	"bytes"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/dlca"
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
}
