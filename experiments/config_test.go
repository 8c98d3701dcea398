package experiments

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dlca/dlca/circuit"
)

// writeFile writes content to name in dir and returns its path.
func writeFile(t *testing.T, dir, name string, content []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestBuiltinsRoundTrip: every built-in experiment printed as a file reads
// back as the same configuration, prints the same text again, and resolves
// to an experiment with the same settings, initial states and target.
func TestBuiltinsRoundTrip(t *testing.T) {
	for _, name := range Names() {
		c, err := Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		var text bytes.Buffer
		if err := c.WriteTOML(&text); err != nil {
			t.Fatal(err)
		}
		back, err := Parse(text.Bytes(), name+".toml")
		if err != nil {
			t.Fatalf("%s: printed file does not read back: %v\n%s", name, err, text.String())
		}
		var again bytes.Buffer
		if err := back.WriteTOML(&again); err != nil {
			t.Fatal(err)
		}
		if again.String() != text.String() {
			t.Fatalf("%s: printed twice differs:\n%s\nthen\n%s", name, text.String(), again.String())
		}
		want, err := c.Resolve()
		if err != nil {
			t.Fatal(err)
		}
		got, err := back.Resolve()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got.Model.String() != want.Model.String() || got.Optimizer != want.Optimizer || got.Batch != want.Batch ||
			got.Steps != want.Steps || got.Iterations != want.Iterations || got.Seed != want.Seed || got.Async != want.Async ||
			got.Colour != want.Colour || !reflect.DeepEqual(got.LossChannels, want.LossChannels) {
			t.Fatalf("%s: settings differ after the round trip:\n%+v\n%+v", name, got, want)
		}
		if len(got.Checks) != len(want.Checks) {
			t.Fatalf("%s: %d checks, want %d", name, len(got.Checks), len(want.Checks))
		}
		for i := range got.Checks {
			if got.Checks[i].Description != want.Checks[i].Description {
				t.Fatalf("%s: check %d is %q, want %q", name, i, got.Checks[i].Description, want.Checks[i].Description)
			}
		}
		src := want.Source()
		gb, wb := got.Source()(rngFor(5)), src(rngFor(5))
		if !reflect.DeepEqual(gb, wb) {
			t.Fatalf("%s: the batches differ after the round trip", name)
		}
	}
}

// TestBuiltinSettings pins settings of the built-ins that the files carry
// (the paper's table, PAPER.md section 3), so that moving them into
// configurations changed none.
func TestBuiltinSettings(t *testing.T) {
	e, err := Get("checkerboard-async")
	if err != nil {
		t.Fatal(err)
	}
	if !e.Async || e.Steps != 50 || e.Iterations != 800 || e.Optimizer.Beta2 != 0.99 || e.Optimizer.Clip != 100 || e.Optimizer.WeightDecay != 0.01 || len(e.Checks) != 4 ||
		!strings.HasSuffix(e.Checks[3].Description, "(either phase)") {
		t.Fatalf("checkerboard-async: %+v", e)
	}
	g, _ := Get("gameoflife")
	if g.TargetOf == nil || g.Model.Boundary != circuit.Periodic || g.Batch != 20 || g.Checks[0].Name != "all-neighbourhoods" {
		t.Fatalf("gameoflife: %+v", g)
	}
	c, _ := Get("colour-g")
	if !c.Colour || len(c.LossChannels) != 3 || c.Init(nil, 4, 4, 2)[0] != 0 {
		t.Fatalf("colour-g: %+v", c)
	}
}

// TestLoadErrors: unknown keys, wrong types and impossible combinations
// are errors that name the file, the key's line and the key.
func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "ring.png")
	writePNG(t, small, 20, 20, func(x, y int) color.Color { return color.Gray{uint8(255 * ((x + y) % 2))} })
	base := `name = "t"
height = 8
width = 8
channels = 4
kernels = 2
kernel_layers = [9, 8, 4, 2]
update_layers = [64, 32, 16, 8, 4]
batch = 1
steps = 4
iterations = 10
loss_channels = [0]
[target]
kind = "checkerboard"
`
	cases := []struct {
		name, file string
		want       []string
	}{
		{"unknown key", base + "colour_bits = 3\n", []string{"f.toml:14: unknown key target.colour_bits"}},
		{"unknown top key", strings.Replace(base, "batch = 1", "bacth = 1", 1), []string{"f.toml:8: unknown key bacth"}},
		{"wrong type", strings.Replace(base, "steps = 4", `steps = "four"`, 1), []string{"f.toml:9: steps: want a whole number, not a string"}},
		{"float for int", strings.Replace(base, "steps = 4", `steps = 4.5`, 1), []string{"f.toml:9: steps: want a whole number, not a float"}},
		{"scalar for array", strings.Replace(base, "loss_channels = [0]", "loss_channels = 0", 1), []string{"f.toml:11: loss_channels: want an array of whole numbers ([a, b, ...]), not an integer"}},
		{"number for bool", base[:len("name = \"t\"\n")] + "async = 1\n" + base[len("name = \"t\"\n"):], []string{"f.toml:2: async: want true or false, not an integer"}},
		{"number for table", strings.Replace(base, "[target]\nkind = \"checkerboard\"\n", "target = 3\n", 1), []string{"f.toml:12: target: want a table"}},
		{"negative seed", base[:len("name = \"t\"\n")] + "seed = -1\n" + base[len("name = \"t\"\n"):], []string{"f.toml:2: seed: want a whole number, 0 or more, not -1"}},
		{"layer too small", strings.Replace(base, "[64, 32, 16, 8, 4]", "[64, 8, 16, 8, 4]", 1),
			[]string{"f.toml:7: update_layers[1] has 8 gates for 64 inputs", "at least 32"}},
		{"last layer not channels", strings.Replace(base, "[64, 32, 16, 8, 4]", "[64, 32, 16, 8, 8]", 1), []string{"f.toml:7: update_layers ends with 8"}},
		{"loss channel beyond", strings.Replace(base, "loss_channels = [0]", "loss_channels = [4]", 1), []string{"f.toml:11: loss_channels: channel 4 is beyond the 4 channels"}},
		{"target larger than grid", strings.Replace(base, `kind = "checkerboard"`, `kind = "lizard"`, 1), []string{"f.toml:13: target.kind: lizard is 20x20, larger than the 8x8 grid"}},
		{"png larger than grid", strings.Replace(base, `kind = "checkerboard"`, "kind = \"png\"\nfile = \"ring.png\"", 1), []string{"f.toml:14: target.file:", "is 20x20, larger than the 8x8 grid"}},
		{"png missing", strings.Replace(base, `kind = "checkerboard"`, "kind = \"png\"\nfile = \"none.png\"", 1), []string{"f.toml:14: target.file: none.png: no such file"}},
		{"unknown target", strings.Replace(base, `kind = "checkerboard"`, `kind = "square"`, 1), []string{"f.toml:13: target.kind: \"square\": use png,"}},
		{"missing keys", strings.Replace(strings.Replace(base, "channels = 4\n", "", 1), "steps = 4\n", "", 1), []string{"f.toml: missing channels, steps:"}},
		{"missing target", strings.Replace(base, "[target]\nkind = \"checkerboard\"", "[target]\nthreshold = 0.5", 1), []string{"f.toml:12: target.kind: missing"}},
		{"channels 0", strings.Replace(base, "channels = 4\n", "channels = 0\n", 1), []string{"f.toml:4: channels is 0"}},
		{"check param", base + "[[checks]]\nkind = \"generalise\"\nsize = 16\nsteps = 10\nhole = 3\n", []string{"f.toml:18: checks[0].hole: check generalise takes no hole"}},
		{"life check", base + "[[checks]]\nkind = \"life-grid\"\nsize = 16\nsteps = 10\n", []string{"f.toml:15: checks[0].kind: check life-grid needs target kind \"gameoflife\""}},
		{"two errors", strings.Replace(base, "batch = 1", "batch = 0", 1) + "[init]\nkind = \"noise\"\n",
			[]string{"f.toml:8: batch: 0", "f.toml:15: init.kind: \"noise\""}},
		{"bad toml", base + "lr = \n", []string{"f.toml:14:"}},
		{"wiring", strings.Replace(base, `name = "t"`, "name = \"t\"\nwiring = \"randon\"", 1), []string{`f.toml:2: wiring: "randon": use "unique"`}},
		{"not a plain name", strings.Replace(base, `name = "t"`, `name = "../t"`, 1), []string{`f.toml:1: name "../t" is not a plain name`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, dir, "f.toml", []byte(tc.file))
			c, err := Load(path)
			if err == nil {
				_, err = c.Resolve()
			}
			if err == nil {
				t.Fatalf("no error for\n%s", tc.file)
			}
			msg := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Fatalf("error %q does not say %q", msg, w)
				}
			}
		})
	}
	// The base file itself is fine.
	c, err := Load(writeFile(t, dir, "f.toml", []byte(base)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Resolve(); err != nil {
		t.Fatal(err)
	}
	// Random wiring needs no more gates than inputs / 2.
	c.UpdateLayers = []int{64, 8, 16, 8, 4}
	if _, err := c.Resolve(); err == nil {
		t.Fatal("a layer too small for unique wiring resolved")
	}
	c.Wiring = "random"
	e, err := c.Resolve()
	if err != nil || e.Model.Wiring != "random" {
		t.Fatalf("random wiring: %v, %+v", err, e)
	}
}

// TestSet: -set changes one setting, takes bare words as strings, and its
// errors name the key.
func TestSet(t *testing.T) {
	c, _ := Builtin("checkerboard-small")
	for _, kv := range [][2]string{{"checks", "[{kind = 'grow', size = 30, steps = 4}]"}, {"lr", "0.03"}, {"boundary", "periodic"}, {"update_layers", "[256, 128, 64, 32, 16, 8]"}, {"seed", "7"}, {"target.kind", "lizard"}, {"height", "20"}, {"width", "20"}} {
		if err := c.Set(kv[0], kv[1]); err != nil {
			t.Fatalf("Set(%s, %s): %v", kv[0], kv[1], err)
		}
	}
	e, err := c.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	if e.Optimizer.LR != 0.03 || e.Model.Boundary != circuit.Periodic || len(e.Model.UpdateLayers) != 6 || e.Seed != 7 || e.Target(20, 20)[0] != 0 || e.Model.Height != 20 ||
		len(e.Checks) != 1 || e.Checks[0].Name != "grow" {
		t.Fatalf("after Set: %+v", e)
	}
	for _, tc := range []struct{ key, value, want string }{
		{"lrr", "0.1", "unknown key lrr"},
		{"lr", "fast", "-set: lr: want a number, not a string"},
		{"target.colour", "1", "unknown key target.colour"},
		{"", "1", "want key=value"},
		{"lr", "0.1\nsteps = 3", "on one line"},
	} {
		if err := c.Set(tc.key, tc.value); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("Set(%q, %q): error %v, want one saying %q", tc.key, tc.value, err, tc.want)
		}
	}
	// Errors in what -set replaced name -set, not the file's old lines.
	var text bytes.Buffer
	c.WriteTOML(&text)
	f, err := Parse(text.Bytes(), "f.toml")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(f.at("checks[0].steps"), "f.toml:") {
		t.Fatalf("checks[0].steps is said to be at %q, want a line of f.toml", f.at("checks[0].steps"))
	}
	f.Set("checks", "[{kind = 'grow', size = 30}]")
	if f.at("checks[0].steps") != "-set: " {
		t.Fatalf("a key -set replaced is said to be at %q", f.at("checks[0].steps"))
	}
	c.Set("loss_channels", "[9]")
	if _, err := c.Resolve(); err == nil || !strings.HasPrefix(err.Error(), "-set: loss_channels: channel 9") {
		t.Fatalf("a bad setting from -set: error %v, want one starting -set: loss_channels", err)
	}
}

// writePNG writes a w x h picture of colours at(x, y).
func writePNG(t *testing.T, path string, w, h int, at func(x, y int) color.Color) {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, at(x, y))
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Dir(path), filepath.Base(path), b.Bytes())
}

// TestPictureTargetAndInit: a PNG target through a palette and a PNG
// initial state through a threshold, both centred on larger grids; paths
// are relative to the file.
func TestPictureTargetAndInit(t *testing.T) {
	dir := t.TempDir()
	red, blue := color.NRGBA{255, 0, 0, 255}, color.NRGBA{0, 0, 255, 255}
	// A 2x4 target: red left half, blue right half.
	writePNG(t, filepath.Join(dir, "t.png"), 4, 2, func(x, _ int) color.Color {
		if x < 2 {
			return red
		}
		return blue
	})
	// A 2x2 initial state: white on the diagonal.
	writePNG(t, filepath.Join(dir, "i.png"), 2, 2, func(x, y int) color.Color { return color.Gray{uint8(255 * (1 - (x+y)%2))} })
	file := `height = 4
width = 6
channels = 3
kernels = 1
kernel_layers = [9, 8]
update_layers = [16, 8, 4, 3]
batch = 1
steps = 2
iterations = 1
loss_channels = [2, 1]
[init]
kind = "file"
file = "i.png"
threshold = 0.5
channel = 1
[target]
kind = "png"
file = "t.png"
palette = { "#ff0000" = [1, 0], "#0000FF" = [0, 1] }
`
	c, err := Load(writeFile(t, dir, "p.toml", []byte(file)))
	if err != nil {
		t.Fatal(err)
	}
	if c.Target.File != filepath.Join(dir, "t.png") {
		t.Fatalf("target file %q: want it made absolute from the file's folder", c.Target.File)
	}
	e, err := c.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	// The target centred on 4x6: rows 1 and 2, columns 1 to 4; two values
	// a cell (loss channels 2 and 1).
	target := e.Target(4, 6)
	for y := range 4 {
		for x := range 6 {
			want := [2]float32{}
			if y >= 1 && y <= 2 && x >= 1 && x <= 4 {
				if x <= 2 {
					want[0] = 1
				} else {
					want[1] = 1
				}
			}
			if got := [2]float32(target[(y*6+x)*2:][:2]); got != want {
				t.Fatalf("target cell (%d, %d) = %v, want %v", y, x, got, want)
			}
		}
	}
	// The initial state centred on 4x6: the diagonal at rows 1-2, columns
	// 2-3, in channel 1 only.
	init := e.Init(nil, 4, 6, 3)
	for i, v := range init {
		cell, k := i/3, i%3
		y, x := cell/6, cell%6
		want := float32(0)
		if k == 1 && (y == 1 && x == 2 || y == 2 && x == 3) {
			want = 1
		}
		if v != want {
			t.Fatalf("init (%d, %d) channel %d = %v, want %v", y, x, k, v, want)
		}
	}
	// A colour the palette does not name is an error naming the pixel.
	c.Target.Palette = map[string][]int{"#ff0000": {1, 0}}
	if _, err := c.Resolve(); err == nil || !strings.Contains(err.Error(), "pixel (x 2, y 0): colour #0000ff is not in the palette") {
		t.Fatalf("unnamed colour: error %v", err)
	}
}

func rngFor(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 1)) }
