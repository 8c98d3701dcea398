package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// sha256Of is the hex SHA-256 of the file at path, for the test's own
// expectations.
func sha256Of(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// TestRunRecordsTravel: run.json records the Go version and the build,
// each input file (the experiment file, its target PNG) with its SHA-256
// and a path relative to the experiment file (the experiment file's own
// relative to the run), and no absolute path. A project folder moved
// elsewhere (experiment file, picture, runs): resuming from the checkpoint
// alone says which input is missing and where it looked; resuming with
// -config naming the moved file goes on, and ends with the model of a run
// never moved.
func TestRunRecordsTravel(t *testing.T) {
	root := t.TempDir()
	proj := filepath.Join(root, "proj")
	if err := os.Mkdir(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	file := ringFile(t, proj)
	run, whole := filepath.Join(proj, "runs", "a"), filepath.Join(proj, "runs", "whole")
	dlcaOK(t, "train", "-config", file, "-iterations", "2", "-quiet", "-out", run)
	dlcaOK(t, "train", "-config", file, "-iterations", "4", "-quiet", "-out", whole)

	b, err := os.ReadFile(filepath.Join(run, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), proj) {
		t.Errorf("run.json holds the absolute path %s:\n%s", proj, b)
	}
	r := runRecordOf(t, run)
	if r.Build == nil || r.Build.Go != runtime.Version() {
		t.Errorf("run.json build %+v, want the Go version %s", r.Build, runtime.Version())
	}
	want := []inputRecord{
		{Key: "experiment", Path: "../../ring.toml", SHA256: sha256Of(t, file)},
		{Key: "target.file", Path: "ring.png", SHA256: sha256Of(t, filepath.Join(proj, "ring.png"))},
	}
	if len(r.Inputs) != len(want) {
		t.Fatalf("run.json inputs %+v, want %+v", r.Inputs, want)
	}
	for i := range want {
		if r.Inputs[i] != want[i] {
			t.Errorf("run.json input %d: %+v, want %+v", i, r.Inputs[i], want[i])
		}
	}
	if r.Config == nil || r.Config.Target.File != "ring.png" {
		t.Errorf("run.json's config names target.file %q, want ring.png (relative to the experiment file)", r.Config.Target.File)
	}

	moved := filepath.Join(root, "moved")
	if err := os.Rename(proj, moved); err != nil {
		t.Fatal(err)
	}
	run, whole = filepath.Join(moved, "runs", "a"), filepath.Join(moved, "runs", "whole")
	ckpt := filepath.Join(run, "checkpoint.json")
	code, _, errs := runCmd("train", "-resume", ckpt, "-iterations", "4", "-quiet", "-out", run)
	if code != 1 || !strings.Contains(errs, "target.file "+filepath.Join(proj, "ring.png")) || !strings.Contains(errs, "-config") {
		t.Fatalf("resuming a moved run from its checkpoint alone: exit %d, %q; want a refusal naming target.file, where it looked and -config", code, errs)
	}
	dlcaOK(t, "train", "-config", filepath.Join(moved, "ring.toml"), "-resume", ckpt, "-iterations", "4", "-quiet", "-out", run)
	sameModel(t, filepath.Join(run, "model.json"), filepath.Join(whole, "model.json"))
}

// sameModel fails t unless model files a and b hold the same model: the
// same JSON but for the recorded experiment, whose input paths say where
// each run was trained.
func sameModel(t *testing.T, a, b string) {
	t.Helper()
	var docs [2]map[string]any
	for i, path := range []string{a, b} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &docs[i]); err != nil {
			t.Fatal(err)
		}
		delete(docs[i], "experiment")
	}
	if !reflect.DeepEqual(docs[0], docs[1]) {
		t.Fatalf("%s and %s hold different models", a, b)
	}
}

// TestMissingInputSaysWhere: an experiment file whose picture is not
// beside it is refused naming the key and the path looked at.
func TestMissingInputSaysWhere(t *testing.T) {
	dir := t.TempDir()
	file := ringFile(t, dir)
	if err := os.Remove(filepath.Join(dir, "ring.png")); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCmd("train", "-config", file, "-quiet", "-out", filepath.Join(dir, "o"))
	if code != 1 || !strings.Contains(errs, "target.file") || !strings.Contains(errs, filepath.Join(dir, "ring.png")) {
		t.Fatalf("train with the target missing: exit %d, %q; want the key and the path looked at", code, errs)
	}
}
