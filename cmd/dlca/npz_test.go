package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"codeberg.org/sbinet/npyio/npz"
)

// trainedSmallModel trains the small checkerboard for a few iterations into a
// folder of t and returns its model file.
func trainedSmallModel(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	trainSmall(t, dir, 3)
	return filepath.Join(dir, "model.json")
}

// TestNPZRoundTrip: dlca export -format npz writes each layer's logits and
// wiring under the notebook's names and shapes (params/perceive/i
// [kernels, out, 16], wires/perceive/i [2, out], params/update/i [out, 16])
// with the values of the model file, and the config as JSON; dlca import
// of it writes the same model file, byte for byte.
func TestNPZRoundTrip(t *testing.T) {
	model := trainedSmallModel(t)
	dir := filepath.Dir(model)
	arch, back := filepath.Join(dir, "m.npz"), filepath.Join(dir, "back.json")
	dlcaOK(t, "export", "-model", model, "-format", "npz", "-o", arch)

	// The model file's own layers, read as plain JSON.
	var file struct {
		Perception, Update []struct {
			Out, Groups int
			A, B        []int32
			Logits      []float32
		}
	}
	b, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	z, err := npz.Open(arch)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	for _, net := range []struct {
		name   string
		layers []struct {
			Out, Groups int
			A, B        []int32
			Logits      []float32
		}
	}{{"perceive", file.Perception}, {"update", file.Update}} {
		for i, l := range net.layers {
			params, wires := npzParams(net.name, i)+".npy", npzWires(net.name, i)+".npy"
			want := []int{l.Groups, l.Out, 16}
			if net.name == "update" {
				want = []int{l.Out, 16}
			}
			if h := z.Header(params); h == nil || !slices.Equal(h.Descr.Shape, want) {
				t.Fatalf("%s: header %v, want shape %v", params, h, want)
			}
			var logits []float32
			if err := z.Read(params, &logits); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(logits, l.Logits) {
				t.Fatalf("%s: the logits differ from the model file's", params)
			}
			var w []int32
			if err := z.Read(wires, &w); err != nil {
				t.Fatal(err)
			}
			if h := z.Header(wires); !slices.Equal(h.Descr.Shape, []int{2, l.Out}) || !slices.Equal(w, slices.Concat(l.A, l.B)) {
				t.Fatalf("%s: shape %v values %v, want [2 %d] a then b", wires, h.Descr.Shape, w, l.Out)
			}
		}
	}
	var config string
	if err := z.Read("config.npy", &config); err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Format string
		Config struct{ Channels, Kernels int }
	}
	if err := json.Unmarshal([]byte(config), &rec); err != nil || rec.Format != "dlca-npz" || rec.Config.Channels != 8 || rec.Config.Kernels != 16 {
		t.Fatalf("config entry %q (%v): want the dlca-npz record of 8 channels, 16 kernels", config, err)
	}

	dlcaOK(t, "import", "-from", "npz", arch, "-out", back)
	sameFile(t, model, back)
}

// withoutConfig copies the npz from to to without its config entry: the
// arrays alone, as the notebook would save them.
func withoutConfig(t *testing.T, from, to string) {
	t.Helper()
	r, err := zip.OpenReader(from)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, f := range r.File {
		if f.Name == "config.npy" {
			continue
		}
		src, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		dst, err := w.Create(f.Name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(dst, src); err != nil {
			t.Fatal(err)
		}
		src.Close()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestNPZWithoutConfig: an npz of arrays alone (the notebook's params and
// wires) imports with the architecture read from the shapes and the grid
// from the flags, and is the original model but for the wiring's seed
// and the recorded experiment, which only the config entry holds.
func TestNPZWithoutConfig(t *testing.T) {
	model := trainedSmallModel(t)
	dir := filepath.Dir(model)
	arch, bare, back := filepath.Join(dir, "m.npz"), filepath.Join(dir, "bare.npz"), filepath.Join(dir, "back.json")
	dlcaOK(t, "export", "-model", model, "-format", "npz", "-o", arch)
	withoutConfig(t, arch, bare)
	dlcaOK(t, "import", "-from", "npz", bare, "-out", back, "-height", "8", "-width", "8")
	sameModelBut(t, model, back)
	code, _, errs := runCmd("import", "-from", "npz", arch, "-out", filepath.Join(dir, "x.json"), "-height", "8")
	if code != 1 || !strings.Contains(errs, "leave out -height") {
		t.Fatalf("import of an npz with a config and -height: exit %d, %q; want a refusal", code, errs)
	}
}

// TestImportErrors: what dlca import refuses, and how it says so.
func TestImportErrors(t *testing.T) {
	dir := t.TempDir()
	notZip := filepath.Join(dir, "x.npz")
	if err := os.WriteFile(notZip, []byte("not a zip"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.npz")
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	f, _ := w.Create("stray.npy")
	f.Write([]byte("x"))
	w.Close()
	if err := os.WriteFile(empty, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "m.json")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"import", notZip, "-out", out}, "-from is required"},
		{[]string{"import", "-from", "onnx", notZip, "-out", out}, "unknown form"},
		{[]string{"import", "-from", "npz", notZip}, "-out is required"},
		{[]string{"import", "-from", "npz", notZip, "-out", out}, "not an npz"},
		{[]string{"import", "-from", "npz", empty, "-out", out}, "no params/perceive/0"},
		{[]string{"import", "-from", "npz", filepath.Join(dir, "none.npz"), "-out", out}, "no such file"},
	} {
		code, _, errs := runCmd(tc.args...)
		if code != 1 || !strings.Contains(errs, tc.want) {
			t.Errorf("dlca %s: exit %d, %q; want exit 1 saying %q", strings.Join(tc.args, " "), code, errs, tc.want)
		}
	}
}

// sameModelBut fails t unless model files a and b hold the same layers and
// config but for what only an npz's config entry holds: the wiring's seed
// and the recorded experiment.
func sameModelBut(t *testing.T, a, b string) {
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
		delete(docs[i]["config"].(map[string]any), "seed")
	}
	if !reflect.DeepEqual(docs[0], docs[1]) {
		t.Fatalf("%s and %s differ (seed and experiment aside):\n%v\n%v", a, b, docs[0]["config"], docs[1]["config"])
	}
}
