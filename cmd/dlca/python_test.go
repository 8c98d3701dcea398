package main

import (
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"codeberg.org/sbinet/npyio"

	"github.com/dlca/dlca/internal/state"
)

// pythonWithNumPy returns a python3 that imports numpy: $DLCA_PYTHON,
// python3 on the PATH or Debian's /usr/bin/python3 (python3-numpy). Without
// one the test is skipped, or fails where DLCA_REQUIRE_NUMPY=1 (CI).
func pythonWithNumPy(t *testing.T) string {
	t.Helper()
	for _, p := range []string{os.Getenv("DLCA_PYTHON"), "python3", "/usr/bin/python3"} {
		if p == "" {
			continue
		}
		if exec.Command(p, "-c", "import numpy").Run() == nil {
			return p
		}
	}
	if os.Getenv("DLCA_REQUIRE_NUMPY") == "1" {
		t.Fatal("no python3 with numpy (Debian's python3-numpy, scripts/deps), and DLCA_REQUIRE_NUMPY=1")
	}
	t.Skip("no python3 with numpy: install python3-numpy (scripts/deps) to run the Python module's test")
	return ""
}

// readNPY reads a whole .npy file's shape and values, as float64.
func readNPY(t *testing.T, path string) ([]int, []float64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := npyio.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var v []float64
	switch typ := strings.Trim(r.Header.Descr.Type, `'"`); typ {
	case "|u1":
		var b []uint8
		err = r.Read(&b)
		for _, x := range b {
			v = append(v, float64(x))
		}
	case "<f4":
		var b []float32
		err = r.Read(&b)
		for _, x := range b {
			v = append(v, float64(x))
		}
	default:
		t.Fatalf("%s: dtype %s, want uint8 or float32", path, typ)
	}
	if err != nil {
		t.Fatal(err)
	}
	return r.Header.Descr.Shape, v
}

// TestPythonMatchesEval: the shipped Python module (python/dlca.py, NumPy
// only) runs a model file as dlca eval does: the hard circuit's rollout bit
// for bit, the soft model's within 1e-5 (float32 sums in another order: about 3e-7
// here; a wrong input order gives 1e-4), on models of the
// checkerboard's architecture (8 channels, 16 kernels, zero boundary) and
// the Game of Life's (1 channel, 24 update layers, periodic), with random
// logits so that every op is in play, from a random state on a grid that
// is not square, one state [H, W, C] and a batch of two [2, H, W, C].
func TestPythonMatchesEval(t *testing.T) {
	python := pythonWithNumPy(t)
	module, err := filepath.Abs(filepath.Join("..", "..", "python", "dlca.py"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"checkerboard", "gameoflife"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			_, m := randomModel(t, name)
			model := filepath.Join(dir, "model.json")
			if err := m.Save(model); err != nil {
				t.Fatal(err)
			}
			const h, w, steps = 9, 7, 4
			c := m.Config.Channels
			rng := rand.New(rand.NewPCG(5, 0))
			s := &state.State{Height: h, Width: w, Channels: c, Values: make([]float32, h*w*c)}
			for i := range s.Values {
				s.Values[i] = float32(rng.IntN(2))
			}
			init := filepath.Join(dir, "init.npy")
			f, err := os.Create(init)
			if err != nil {
				t.Fatal(err)
			}
			if err := state.WriteNPY(f, s, state.Uint8); err != nil {
				t.Fatal(err)
			}
			f.Close()
			batch, _ := writeStates(t, dir, 2, h, w, c)
			for _, soft := range []bool{false, true} {
				for _, init := range []string{init, batch} {
					evalOut, pyOut := filepath.Join(dir, "eval.npy"), filepath.Join(dir, "py.npy")
					args := []string{"eval", "-model", model, "-experiment", name, "-init", init, "-steps", "4", "-states", evalOut}
					py := []string{module, model, init, "4", pyOut}
					if soft {
						args, py = append(args, "-soft"), append(py, "--soft")
					}
					dlcaOK(t, args...)
					if out, err := exec.Command(python, py...).CombinedOutput(); err != nil {
						t.Fatalf("%s %v: %v\n%s", python, py, err, out)
					}
					es, ev := readNPY(t, evalOut)
					ps, pv := readNPY(t, pyOut)
					want := []int{steps + 1, h, w, c}
					if init == batch {
						want = []int{steps + 1, 2, h, w, c}
					}
					if !slices.Equal(es, want) || !slices.Equal(ps, want) {
						t.Fatalf("soft %v: shapes %v (eval) and %v (python), want %v", soft, es, ps, want)
					}
					worst, changed := 0.0, 0
					for i := range ev {
						worst = max(worst, math.Abs(ev[i]-pv[i]))
						if i >= h*w*c && ev[i] != ev[i-h*w*c] {
							changed++
						}
					}
					if init != batch && changed == 0 {
						t.Fatalf("soft %v: the rollout never changes a cell: the comparison tests nothing", soft)
					}
					t.Logf("soft %v: worst difference %g", soft, worst)
					if tol := map[bool]float64{false: 0, true: 1e-5}[soft]; worst > tol {
						t.Errorf("soft %v, -init %s: python's rollout differs from dlca eval's by up to %g (allowed %g)", soft, filepath.Base(init), worst, tol)
					}
				}
			}
		})
	}
}

// notebookSave is a Python script that saves a model file's layers as the
// paper's notebook would save its params and wires with numpy.savez: no
// config, wires as NumPy's default int64 [2, out], update logits [out, 16].
const notebookSave = `
import json, sys
import numpy as np
doc = json.load(open(sys.argv[1]))
arrays = {}
for net, key in (("perceive", "perception"), ("update", "update")):
    for i, l in enumerate(doc[key]):
        logits = np.asarray(l["logits"], np.float32).reshape(l["groups"], l["out"], 16)
        arrays[f"params/{net}/{i}"] = logits if net == "perceive" else logits[0]
        arrays[f"wires/{net}/{i}"] = np.stack([np.asarray(l["a"]), np.asarray(l["b"])]).astype(np.int64)
np.savez(sys.argv[2], **arrays)
`

// TestNotebookNPZ: arrays saved by NumPy as the notebook holds them
// (np.savez of params and wires, int64 wires, no config) import with dlca
// import -from npz into the model they came from (periodic Game of Life
// architecture: the boundary from -boundary), but for the wiring's seed
// and the recorded experiment; and NumPy reads dlca's own npz export.
func TestNotebookNPZ(t *testing.T) {
	python := pythonWithNumPy(t)
	dir := t.TempDir()
	_, m := randomModel(t, "gameoflife")
	model, saved, back := filepath.Join(dir, "model.json"), filepath.Join(dir, "notebook.npz"), filepath.Join(dir, "back.json")
	if err := m.Save(model); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(python, "-c", notebookSave, model, saved).CombinedOutput(); err != nil {
		t.Fatalf("numpy.savez: %v\n%s", err, out)
	}
	dlcaOK(t, "import", "-from", "npz", saved, "-out", back, "-height", "3", "-width", "3", "-boundary", "periodic")
	sameModelBut(t, model, back)

	export := filepath.Join(dir, "export.npz")
	dlcaOK(t, "export", "-model", model, "-format", "npz", "-o", export)
	check := `
import json, sys
import numpy as np
z = np.load(sys.argv[1])
cfg = json.loads(str(z["config"]))
assert cfg["format"] == "dlca-npz", cfg["format"]
assert z["params/perceive/0"].shape == (16, 8, 16) and z["params/perceive/0"].dtype == np.float32
assert z["wires/update/0"].shape == (2, 128) and z["wires/update/0"].dtype == np.int32
assert cfg["hyperparams"]["update"]["layers"][0] == 1 + 1 * 16 * 1
print("ok")
`
	if out, err := exec.Command(python, "-c", check, export).CombinedOutput(); err != nil || !strings.Contains(string(out), "ok") {
		t.Fatalf("numpy reading dlca's npz: %v\n%s", err, out)
	}
}
