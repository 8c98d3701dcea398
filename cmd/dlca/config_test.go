package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// dlcaOK runs dlca with args and fails t unless it succeeds; it returns
// the standard output.
func dlcaOK(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errs := runCmd(args...)
	if code != 0 {
		t.Fatalf("dlca %s: exit %d: %s", strings.Join(args, " "), code, errs)
	}
	return out
}

// sameFile fails t unless the files a and b hold the same bytes.
func sameFile(t *testing.T, a, b string) {
	t.Helper()
	ab, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	bb, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ab, bb) {
		t.Fatalf("%s and %s differ", a, b)
	}
}

// TestTrainConfigIsExperiment: a built-in experiment printed by dlca
// config trains, with dlca train -config, the model -experiment trains,
// byte for byte: the small checkerboard (random bits, a pattern target)
// and the Game of Life (whose target depends on the initial state).
func TestTrainConfigIsExperiment(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"checkerboard-small", "gameoflife"} {
		file := filepath.Join(dir, name+".toml")
		if err := os.WriteFile(file, []byte(dlcaOK(t, "config", "-experiment", name)), 0o644); err != nil {
			t.Fatal(err)
		}
		byName, byFile := filepath.Join(dir, name+"-name"), filepath.Join(dir, name+"-file")
		dlcaOK(t, "train", "-experiment", name, "-iterations", "3", "-quiet", "-out", byName)
		dlcaOK(t, "train", "-config", file, "-iterations", "3", "-quiet", "-out", byFile)
		sameFile(t, filepath.Join(byName, "model.json"), filepath.Join(byFile, "model.json"))
		a, b := runRecordOf(t, byName), runRecordOf(t, byFile)
		if len(a.Metrics) != 3 || len(b.Metrics) != 3 {
			t.Fatalf("%s: %d and %d iterations recorded, want 3", name, len(a.Metrics), len(b.Metrics))
		}
		for i := range a.Metrics {
			if a.Metrics[i].SoftLoss != b.Metrics[i].SoftLoss || a.Metrics[i].HardLoss != b.Metrics[i].HardLoss {
				t.Fatalf("%s: iteration %d: losses %+v and %+v", name, i+1, a.Metrics[i], b.Metrics[i])
			}
		}
		if b.Config == nil || b.Config.Name != name || b.Config.Iterations != 3 {
			t.Fatalf("%s: run.json records the configuration %+v", name, b.Config)
		}
	}
}

// TestPrintedRunReproduces: the configuration printed from a model file
// (dlca config -model), of a run changed by -set and the seed flags,
// trains that model again bit for bit; a changed setting gives another.
func TestPrintedRunReproduces(t *testing.T) {
	dir := t.TempDir()
	first := filepath.Join(dir, "first")
	dlcaOK(t, "train", "-experiment", "checkerboard-small", "-set", "lr=0.07", "-set", "update_layers=[256, 128, 64, 32, 16, 8]",
		"-seed", "5", "-wiring-seed", "6", "-iterations", "3", "-quiet", "-out", first)
	printed := dlcaOK(t, "config", "-model", filepath.Join(first, "model.json"))
	for _, want := range []string{"lr = 0.07", "seed = 5", "wiring_seed = 6", "iterations = 3", "update_layers = [256, 128, 64, 32, 16, 8]"} {
		if !strings.Contains(printed, want) {
			t.Fatalf("the printed configuration lacks %q:\n%s", want, printed)
		}
	}
	file := filepath.Join(dir, "run.toml")
	if err := os.WriteFile(file, []byte(printed), 0o644); err != nil {
		t.Fatal(err)
	}
	again := filepath.Join(dir, "again")
	dlcaOK(t, "train", "-config", file, "-quiet", "-out", again)
	sameFile(t, filepath.Join(first, "model.json"), filepath.Join(again, "model.json"))

	other := filepath.Join(dir, "other")
	dlcaOK(t, "train", "-config", file, "-set", "seed=4", "-quiet", "-out", other)
	a, _ := os.ReadFile(filepath.Join(first, "model.json"))
	b, _ := os.ReadFile(filepath.Join(other, "model.json"))
	if bytes.Equal(a, b) {
		t.Fatal("another seed trained the same model file: the test cannot tell runs apart")
	}
}

// ringFile writes a small experiment file with a PNG target (a ring drawn
// by threshold) and returns its path.
func ringFile(t *testing.T, dir string) string {
	t.Helper()
	copyFile(t, filepath.Join("..", "..", "examples", "ring", "ring.png"), filepath.Join(dir, "ring.png"))
	file := `name = "tiny-ring"
height = 16
width = 16
channels = 4
kernels = 2
kernel_layers = [9, 8, 4, 2]
update_layers = [32, 16, 8, 4]
batch = 1
steps = 6
iterations = 4
loss_channels = [0]
[init]
kind = "centre"
channels = [0, 2]
[target]
kind = "png"
file = "ring.png"
threshold = 0.5
[[checks]]
kind = "grow"
size = 20
steps = 6
`
	path := filepath.Join(dir, "ring.toml")
	if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestResumeConfigRun: a run from an experiment file, stopped after 2 of 4
// iterations and resumed from its checkpoint alone (from another folder),
// ends with the model of the run that was never stopped; the checkpoint
// refuses a -set that changes the run; dlca check knows the run's checks.
func TestResumeConfigRun(t *testing.T) {
	dir := t.TempDir()
	file := ringFile(t, dir)
	whole, parts := filepath.Join(dir, "whole"), filepath.Join(dir, "parts")
	dlcaOK(t, "train", "-config", file, "-quiet", "-out", whole)
	dlcaOK(t, "train", "-config", file, "-iterations", "2", "-quiet", "-out", parts)
	// The file may change or go: the checkpoint holds the run's settings.
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	ckpt := filepath.Join(parts, "checkpoint.json")
	code, _, errs := runCmd("train", "-resume", ckpt, "-iterations", "4", "-set", "lr=0.1", "-quiet")
	if code != 1 || !strings.Contains(errs, "lr = 0.1") || !strings.Contains(errs, "lr = 0.05") {
		t.Fatalf("-set lr on resume: exit %d, %q; want a refusal naming both learning rates", code, errs)
	}
	code, _, errs = runCmd("train", "-resume", ckpt, "-iterations", "4", "-set", "seed=5", "-quiet")
	if code != 1 || !strings.Contains(errs, "seed = 5") {
		t.Fatalf("-set seed on resume: exit %d, %q; want a refusal naming the seed", code, errs)
	}
	dlcaOK(t, "train", "-resume", ckpt, "-set", "iterations=4", "-quiet")
	sameFile(t, filepath.Join(whole, "model.json"), filepath.Join(parts, "model.json"))
	if r := runRecordOf(t, parts); r.Experiment != "tiny-ring" || len(r.Metrics) != 4 || len(r.Checks) != 1 || r.Checks[0].Name != "grow" {
		t.Fatalf("resumed run record: %+v", r)
	}
	// dlca check takes the experiment the model records.
	if _, out, errs := runCmd("check", "-model", filepath.Join(parts, "model.json")); !strings.HasPrefix(out, "check grow") {
		t.Fatalf("dlca check of the run's model: %q %q, want its one check, grow", out, errs)
	}
}

// TestConfigErrors: a bad experiment file or -set is refused before
// training, naming the file's line and the key; dlca config needs one
// source.
func TestConfigErrors(t *testing.T) {
	dir := t.TempDir()
	file := ringFile(t, dir)
	bad := filepath.Join(dir, "bad.toml")
	b, _ := os.ReadFile(file)
	if err := os.WriteFile(bad, bytes.Replace(b, []byte("loss_channels = [0]"), []byte("loss_channels = [0, 4]"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"train", "-config", bad, "-out", filepath.Join(dir, "o")}, "bad.toml:11: loss_channels: channel 4 is beyond the 4 channels"},
		{[]string{"train", "-config", file, "-set", "steps=many", "-out", filepath.Join(dir, "o")}, "-set: steps:"},
		{[]string{"train", "-config", file, "-set", "stepz=3", "-out", filepath.Join(dir, "o")}, "unknown key stepz"},
		{[]string{"train", "-config", file, "-set", "lr", "-out", filepath.Join(dir, "o")}, "want key=value"},
		{[]string{"train", "-config", file, "-experiment", "lizard", "-out", filepath.Join(dir, "o")}, "not both"},
		{[]string{"config", "-config", bad}, "bad.toml:11: loss_channels"},
		{[]string{"config"}, "give one of"},
		{[]string{"config", "-experiment", "lizzard"}, "unknown experiment"},
	} {
		code, _, errs := runCmd(tc.args...)
		if code != 1 || !strings.Contains(errs, tc.want) {
			t.Fatalf("dlca %s: exit %d, %q; want exit 1 saying %q", strings.Join(tc.args, " "), code, errs, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "o")); !os.IsNotExist(err) {
		t.Fatalf("a refused run left its output folder: %v", err)
	}
}
