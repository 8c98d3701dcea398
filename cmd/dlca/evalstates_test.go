package main

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"codeberg.org/sbinet/npyio"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/internal/memlimit"
	"github.com/dlca/dlca/internal/state"
)

// readStates reads an -states file with npyio: its shape and values.
func readStates[T uint8 | float32](t *testing.T, path string) ([]int, []T) {
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
	var v []T
	if err := r.Read(&v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return r.Header.Descr.Shape, v
}

// goRollout runs the rollout eval should run from init [H, W, C], in Go,
// and returns every state, the initial one first, as 0/1 bytes (hard, on
// the circuit) or float32 (soft).
func goRollout(m *dlca.Model, init []float32, h, w, steps int, soft, async bool, seed uint64) []float32 {
	c := m.Config.Channels
	t := autograd.New(slices.Clone(init), 1, h, w, c)
	all := slices.Clone(init)
	if soft {
		m.Rollout(t, steps, dlca.RolloutOptions{Async: async, Seed: seed, After: func(_ int, s *autograd.Tensor) *autograd.Tensor {
			all = append(all, s.Data32()...)
			return s
		}})
		return all
	}
	m.Circuit().Rollout(dlca.BitsOf(t), steps, dlca.HardOptions{Async: async, Seed: seed, After: func(_ int, s *dlca.Bits) {
		for _, b := range s.Boards[0].Unpack() {
			all = append(all, float32(b))
		}
	}})
	return all
}

// savedRandomModel saves randomModel (whose rollouts change the state).
func savedRandomModel(t *testing.T, name string) (string, *dlca.Model) {
	t.Helper()
	_, m := randomModel(t, name)
	path := filepath.Join(t.TempDir(), "model.json")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	return path, m
}

// TestEvalInitStatesMatchGo: eval -init FILE.npy -states OUT.npy on a
// rectangular grid writes [T+1, H, W, C] states that equal the same
// rollout run in Go from that state: hard and soft, sync and async.
func TestEvalInitStatesMatchGo(t *testing.T) {
	path, m := savedRandomModel(t, "checkerboard-small")
	const h, w, steps, seed = 7, 13, 5, 4
	c := m.Config.Channels
	rng := rand.New(rand.NewPCG(9, 0))
	init := &state.State{Height: h, Width: w, Channels: c, Values: make([]float32, h*w*c)}
	for i := range init.Values {
		init.Values[i] = float32(rng.IntN(2))
	}
	dir := t.TempDir()
	initPath := filepath.Join(dir, "init.npy")
	var b bytes.Buffer
	if err := state.WriteNPY(&b, init, state.Uint8); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(initPath, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ soft, async bool }{{false, false}, {false, true}, {true, false}, {true, true}} {
		t.Run(fmt.Sprintf("soft=%v/async=%v", tc.soft, tc.async), func(t *testing.T) {
			out := filepath.Join(dir, fmt.Sprintf("states-%v-%v.npy", tc.soft, tc.async))
			args := []string{"eval", "-experiment", "checkerboard-small", "-model", path, "-init", initPath, "-steps", fmt.Sprint(steps), "-seed", fmt.Sprint(seed), "-states", out}
			if tc.soft {
				args = append(args, "-soft")
			}
			if tc.async {
				args = append(args, "-async")
			}
			code, stdout, errs := runCmd(args...)
			if code != 0 || !strings.Contains(stdout, "7x13") || !strings.Contains(stdout, "wrote "+out) {
				t.Fatalf("eval: exit %d: %s%s", code, stdout, errs)
			}
			want := goRollout(m, init.Values, h, w, steps, tc.soft, tc.async, seed)
			var shape []int
			var got []float32
			if tc.soft {
				shape, got = readStates[float32](t, out)
			} else {
				var bits []uint8
				shape, bits = readStates[uint8](t, out)
				for _, v := range bits {
					got = append(got, float32(v))
				}
			}
			if !slices.Equal(shape, []int{steps + 1, h, w, c}) {
				t.Fatalf("shape %v, want [%d %d %d %d]", shape, steps+1, h, w, c)
			}
			if !slices.Equal(got[:h*w*c], init.Values) {
				t.Error("state 0 is not the -init state")
			}
			if !slices.Equal(got, want) {
				t.Error("the states differ from the Go rollout from the same state")
			}
			if slices.Equal(got[:h*w*c], got[len(got)-h*w*c:]) {
				t.Error("the rollout did not change the state: the test cannot tell states apart")
			}
		})
	}
}

// TestEvalRectangularStates: -height and -width without -init make a
// rectangular grid from the experiment's initial state.
func TestEvalRectangularStates(t *testing.T) {
	path, e, m := untrainedModel(t, "checkerboard-small")
	out := filepath.Join(t.TempDir(), "s.npy")
	code, stdout, errs := runCmd("eval", "-experiment", "checkerboard-small", "-model", path, "-height", "5", "-width", "9", "-steps", "2", "-seed", "3", "-states", out)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, stdout, errs)
	}
	c := m.Config.Channels
	shape, got := readStates[uint8](t, out)
	if !slices.Equal(shape, []int{3, 5, 9, c}) {
		t.Fatalf("shape %v, want [3 5 9 %d]", shape, c)
	}
	init := e.Init(rand.New(rand.NewPCG(3, 0)), 5, 9, c)
	for i, v := range init {
		if float32(got[i]) != v {
			t.Fatalf("state 0 value %d is %d, want the experiment's %v", i, got[i], v)
		}
	}
}

// TestEvalInitPNG: a grey PNG sets channel 0 by the threshold; a palette
// sets several channels.
func TestEvalInitPNG(t *testing.T) {
	path, m := savedRandomModel(t, "checkerboard-small")
	c := m.Config.Channels
	dir := t.TempDir()
	img := image.NewNRGBA(image.Rect(0, 0, 3, 2))
	cols := []color.NRGBA{{0, 0, 0, 255}, {255, 255, 255, 255}, {100, 100, 100, 255}, {255, 0, 0, 255}, {0, 0, 0, 255}, {200, 200, 200, 255}}
	for i, col := range cols {
		img.Set(i%3, i/3, col)
	}
	pic := filepath.Join(dir, "init.png")
	f, _ := os.Create(pic)
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, tc := range []struct {
		name  string
		flags []string
		want  [][]uint8 // the leading channels of each cell
	}{
		{"grey", nil, [][]uint8{{0}, {1}, {0}, {0}, {0}, {1}}},
		{"threshold", []string{"-threshold", "0.3"}, [][]uint8{{0}, {1}, {1}, {0}, {0}, {1}}},
		{"palette", []string{"-palette", "#000000=00,#ffffff=11,#646464=01,#ff0000=10,#c8c8c8=001"}, [][]uint8{{0, 0, 0}, {1, 1, 0}, {0, 1, 0}, {1, 0, 0}, {0, 0, 0}, {0, 0, 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, tc.name+".npy")
			args := append([]string{"eval", "-experiment", "checkerboard-small", "-model", path, "-init", pic, "-steps", "0", "-states", out}, tc.flags...)
			if code, stdout, errs := runCmd(args...); code != 0 {
				t.Fatalf("exit %d: %s%s", code, stdout, errs)
			}
			shape, got := readStates[uint8](t, out)
			if !slices.Equal(shape, []int{1, 2, 3, c}) {
				t.Fatalf("shape %v, want [1 2 3 %d]", shape, c)
			}
			for cell, want := range tc.want {
				bits := got[cell*c : (cell+1)*c]
				if !slices.Equal(bits[:len(want)], want) || slices.Max(bits[len(want):]) != 0 {
					t.Errorf("cell %d is %v, want %v then 0s", cell, bits, want)
				}
			}
		})
	}
}

// TestEvalStatesBadInput: wrong shapes, values and conflicting flags are
// refused with a message naming the file, what it holds and what was
// wanted, and nothing is written.
func TestEvalStatesBadInput(t *testing.T) {
	path, _ := savedRandomModel(t, "checkerboard-small")
	dir := t.TempDir()
	save := func(name string, h, w, c int, v float32) string {
		s := &state.State{Height: h, Width: w, Channels: c, Values: make([]float32, h*w*c)}
		s.Values[len(s.Values)-1] = v
		var b bytes.Buffer
		if err := state.WriteNPY(&b, s, state.Float32); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := save("good.npy", 4, 6, 8, 1)
	three := save("three.npy", 4, 6, 3, 1)
	half := save("half.npy", 4, 6, 8, 0.5)
	out := filepath.Join(dir, "out.npy")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"channels", []string{"-init", three}, "-init " + three + ": the array has shape (4, 6, 3); want (H, W, 8)"},
		{"hard 0.5", []string{"-init", half}, "-init " + half + ": the value at [3, 5, 7] is 0.5: every value must be 0 or 1"},
		{"size against init", []string{"-init", good, "-size", "5"}, "is 4x6 (height x width) but -size 5 asks for 5x5"},
		{"height against init", []string{"-init", good, "-height", "4"}, "but -height 4 -width 64 asks for 4x64"},
		{"size and height", []string{"-size", "8", "-height", "4"}, "give -size or -height/-width, not both"},
		{"bad width", []string{"-width", "0"}, "-height 64 -width 0: each side must be in 1..4096"},
		{"palette without png", []string{"-init", good, "-palette", "rgb"}, "there is no PNG -init"},
		{"states over init", []string{"-init", good, "-states", good}, "is the -init file"},
		{"states over model", []string{"-states", path}, "-states " + path + " is the model file"},
		{"both stdout", []string{"-gif", "-", "-states", "-"}, "name standard output"},
		{"png and states stdout", []string{"-png", "-", "-states", "-"}, "name standard output"},
		{"gif is states", []string{"-gif", out, "-states", out}, "name the same file"},
		{"missing init", []string{"-init", filepath.Join(dir, "none.npy")}, "none.npy: no such file"},
		{"not a state file", []string{"-init", path}, "must be a NumPy array (.npy) or a PNG picture (.png)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"eval", "-experiment", "checkerboard-small", "-model", path, "-steps", "1"}, tc.args...)
			code, _, errs := runCmd(args...)
			if code != 1 || !strings.Contains(errs, tc.want) {
				t.Fatalf("exit %d, stderr %q; want exit 1 and %q", code, errs, tc.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Fatal("an -states file was written")
			}
		})
	}
	// A soft run takes values in [0, 1].
	if code, _, errs := runCmd("eval", "-experiment", "checkerboard-small", "-model", path, "-steps", "1", "-soft", "-init", half); code != 0 {
		t.Fatalf("-soft -init with 0.5: exit %d: %s", code, errs)
	}
}

// TestEvalStatesWithColourGIF: a soft rollout in colour is run twice for
// its GIF (colours first); -states still holds the T+1 states once.
func TestEvalStatesWithColourGIF(t *testing.T) {
	path, e, m := untrainedModel(t, "colour-g")
	const size, steps, seed = 6, 3, 2
	dir := t.TempDir()
	out := filepath.Join(dir, "s.npy")
	code, stdout, errs := runCmd("eval", "-experiment", "colour-g", "-model", path, "-soft", "-size", fmt.Sprint(size), "-steps", fmt.Sprint(steps), "-seed", fmt.Sprint(seed), "-gif", filepath.Join(dir, "e.gif"), "-states", out)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, stdout, errs)
	}
	c := m.Config.Channels
	shape, got := readStates[float32](t, out)
	if !slices.Equal(shape, []int{steps + 1, size, size, c}) {
		t.Fatalf("shape %v, want [%d %d %d %d]", shape, steps+1, size, size, c)
	}
	init := e.Init(rand.New(rand.NewPCG(seed, 0)), size, size, c)
	if want := goRollout(m, init, size, size, steps, true, false, seed); !slices.Equal(got, want) {
		t.Error("the states differ from the Go rollout")
	}
}

// TestEvalRefusesRectangle: a rectangular grid that does not fit is refused
// naming the largest -height that fits at its -width.
func TestEvalRefusesRectangle(t *testing.T) {
	// A fixed -max-memory: the available memory moves while other tests run.
	const limit = 3 << 30
	path, e, m := untrainedModel(t, "checkerboard")
	code, _, errs := runCmd("eval", "-model", path, "-height", "4096", "-width", "4000", "-soft", "-max-memory", "3GiB")
	mt := regexp.MustCompile(`use -height (\d+) or less at -width 4000`).FindStringSubmatch(errs)
	if code != 1 || !strings.Contains(errs, "-height 4096 -width 4000: the soft rollout needs about") || mt == nil {
		t.Fatalf("exit %d, stderr %q; want a refusal naming a -height that fits", code, errs)
	}
	fits, _ := strconv.Atoi(mt[1])
	o := paintOptions(e, 1)
	if fits < 1 || evalMemory(m, fits, 4000, true, false, o) > limit || evalMemory(m, fits+1, 4000, true, false, o) <= limit {
		t.Errorf("suggested -height %d: not the largest within %s", fits, memlimit.FormatBytes(limit))
	}
	if !strings.Contains(errs, "-max-memory is 3.00 GiB") {
		t.Errorf("stderr %q does not name the -max-memory limit", errs)
	}
	// Without -max-memory the available memory is the limit; a bad size is named.
	if code, _, errs := runCmd("eval", "-model", path, "-max-memory", "lots"); code != 1 || !strings.Contains(errs, "-max-memory") {
		t.Errorf("-max-memory lots: exit %d, stderr %q; want exit 1 naming -max-memory", code, errs)
	}
}
