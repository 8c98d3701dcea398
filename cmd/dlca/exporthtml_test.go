package main

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/experiments"
)

// pageSettings extracts the settings a page's script reads.
func pageSettings(t *testing.T, page string) (d struct {
	Name  string
	Gates int
	Sizes []struct {
		H, W           int
		Init, Target   string
		TargetChannels []int
	}
}) {
	t.Helper()
	m := regexp.MustCompile(`(?s)<script id="dlca-data" type="application/json">(.*?)</script>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("the page has no settings script")
	}
	if err := json.Unmarshal([]byte(m[1]), &d); err != nil {
		t.Fatalf("the page's settings: %v", err)
	}
	return d
}

// -format html writes one page that loads nothing from elsewhere. With
// -experiment it carries the experiment's initial states and targets for
// the training grid and the larger sizes; without, neither.
func TestExportHTML(t *testing.T) {
	dir := t.TempDir()
	_, tiny := exportModel(t, dir)
	e, _ := experiments.Get("checkerboard-small")
	m, err := dlca.New(e.Model, autograd.Float32)
	if err != nil {
		t.Fatal(err)
	}
	board := filepath.Join(dir, "board.json")
	if err := m.Save(board); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		model, experiment string
		sizes             [][2]int
	}{
		{tiny, "", [][2]int{{4, 4}, {32, 32}, {64, 64}, {128, 128}, {256, 256}}},
		{board, "checkerboard-small", [][2]int{{8, 8}, {32, 32}, {64, 64}, {128, 128}, {256, 256}}},
	} {
		path := filepath.Join(dir, "page.html")
		args := []string{"export", "-model", tc.model, "-format", "html", "-o", path}
		if tc.experiment != "" {
			args = append(args, "-experiment", tc.experiment)
		}
		if code, out, errs := runCmd(args...); code != 0 || !strings.Contains(out, "wrote "+path) {
			t.Fatalf("%v: exit %d: %s%s", args, code, out, errs)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		page := string(b)
		for _, bad := range []string{"http:", "https:", "src=", "href=", "@import"} {
			if strings.Contains(page, bad) {
				t.Errorf("%v: the page contains %q: it must load nothing", args, bad)
			}
		}
		d := pageSettings(t, page)
		if !strings.Contains(d.Name, tc.model) || (d.Gates < 1 && tc.model == tiny) { // the untrained board simplifies to pass-throughs
			t.Errorf("%v: page names %q with %d gates", args, d.Name, d.Gates)
		}
		if len(d.Sizes) != len(tc.sizes) {
			t.Fatalf("%v: %d sizes, want %v", args, len(d.Sizes), tc.sizes)
		}
		for i, s := range d.Sizes {
			if s.H != tc.sizes[i][0] || s.W != tc.sizes[i][1] {
				t.Errorf("%v: size %d is %dx%d, want %v", args, i, s.H, s.W, tc.sizes[i])
			}
			if has := s.Init != "" && s.Target != ""; has != (tc.experiment != "") {
				t.Errorf("%v: size %d carries initial state and target = %v", args, i, has)
			}
		}
		if tc.experiment == "" {
			continue
		}
		wantCheckerboard(t, d.Sizes[0].Target)
	}
	if code, _, errs := runCmd("export", "-model", tiny, "-format", "html", "-experiment", "checkerboard", "-o", filepath.Join(dir, "x.html")); code != 1 || !strings.Contains(errs, "pass the right -experiment") {
		t.Errorf("a 2-channel model as the checkerboard: exit %d, %s", code, errs)
	}
}

// wantCheckerboard fails unless target, a page's packed 8x8 target, is the
// checkerboard of 2x2 squares (bits LSB first).
func wantCheckerboard(t *testing.T, packed string) {
	t.Helper()
	target, err := base64.StdEncoding.DecodeString(packed)
	if err != nil {
		t.Fatal(err)
	}
	for y := range 8 {
		for x := range 8 {
			i := y*8 + x
			if got, want := target[i/8]>>(i%8)&1, byte((y/2+x/2)%2); got != want {
				t.Fatalf("target cell (%d, %d) is %d, want %d", y, x, got, want)
			}
		}
	}
}

// myBoard writes the experiment file my.toml in dir, checkerboard-small
// renamed my-board, and returns its path and a model of it, recording the
// experiment as dlca train does when record is true.
func myBoard(t *testing.T, dir string, record bool) (file, model string) {
	t.Helper()
	cfg, err := experiments.Builtin("checkerboard-small")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Name = "my-board"
	file = filepath.Join(dir, "my.toml")
	var text strings.Builder
	if err := cfg.WriteTOML(&text); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(text.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := cfg.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	m, err := dlca.New(e.Model, autograd.Float32)
	if err != nil {
		t.Fatal(err)
	}
	if record {
		if m.Experiment, err = json.Marshal(e.Config); err != nil {
			t.Fatal(err)
		}
	}
	model = filepath.Join(dir, map[bool]string{true: "recorded.json", false: "bare.json"}[record])
	if err := m.Save(model); err != nil {
		t.Fatal(err)
	}
	return file, model
}

// -format html of a model that records its experiment (here one from an
// experiment file) gives the page that experiment's initial states and
// target without -experiment, as -experiment FILE does for a model that
// records none.
func TestExportHTMLRecordedExperiment(t *testing.T) {
	dir := t.TempDir()
	file, recorded := myBoard(t, dir, true)
	_, bare := myBoard(t, dir, false)
	for _, args := range [][]string{
		{"-model", recorded},
		{"-model", bare, "-experiment", file},
	} {
		path := filepath.Join(dir, "page.html")
		args = append([]string{"export", "-format", "html", "-o", path}, args...)
		if code, out, errs := runCmd(args...); code != 0 {
			t.Fatalf("%v: exit %d: %s%s", args, code, out, errs)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		d := pageSettings(t, string(b))
		if !strings.HasPrefix(d.Name, "my-board (") {
			t.Errorf("%v: the page is titled %q, want the experiment my-board", args, d.Name)
		}
		if len(d.Sizes) == 0 || d.Sizes[0].H != 8 || d.Sizes[0].W != 8 {
			t.Fatalf("%v: sizes %+v, want the experiment's 8x8 grid first", args, d.Sizes)
		}
		for i, s := range d.Sizes {
			if s.Init == "" || s.Target == "" || len(s.TargetChannels) != 1 || s.TargetChannels[0] != 0 {
				t.Errorf("%v: size %d (%dx%d) has no initial state or target (channels %v)", args, i, s.H, s.W, s.TargetChannels)
			}
		}
		wantCheckerboard(t, d.Sizes[0].Target)
	}
	// Without a record or -experiment: random states, no target.
	path := filepath.Join(dir, "bare.html")
	if code, out, errs := runCmd("export", "-format", "html", "-model", bare, "-o", path); code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errs)
	}
	b, _ := os.ReadFile(path)
	if d := pageSettings(t, string(b)); d.Sizes[0].Init != "" || d.Sizes[0].Target != "" {
		t.Errorf("a model that records no experiment: the page has an initial state or a target")
	}
}

// -format html-train refuses bad flags before building anything.
func TestExportTrainPageBadFlags(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "train.html")
	file, _ := myBoard(t, dir, false)
	// An experiment whose initial state is a picture: a browser tab has no
	// files to read it from.
	cfg, _ := experiments.Load(file)
	cfg.Init.Kind, cfg.Init.File = "file", "start.png"
	var text strings.Builder
	if err := cfg.WriteTOML(&text); err != nil {
		t.Fatal(err)
	}
	withFile := filepath.Join(dir, "picture.toml")
	if err := os.WriteFile(withFile, []byte(text.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-o", out}, "needs -experiment"},
		{[]string{"-experiment", "nope", "-o", out}, `unknown experiment "nope"`},
		{[]string{"-experiment", "checkerboard-small"}, "-o is required"},
		{[]string{"-experiment", "checkerboard-small", "-iterations", "-1", "-o", out}, "must not be negative"},
		{[]string{"-config", filepath.Join(dir, "missing.toml"), "-o", out}, "cannot read the experiment file"},
		{[]string{"-config", file, "-experiment", "checkerboard-small", "-o", out}, "not both"},
		{[]string{"-config", withFile, "-o", out}, "the training page reads no files"},
		{[]string{"-experiment", withFile, "-o", out}, "the training page reads no files"},
	} {
		code, _, errs := runCmd(append([]string{"export", "-format", "html-train"}, tc.args...)...)
		if code != 1 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 1 mentioning %q", tc.args, code, errs, tc.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused export left a file")
	}
}

// -format html-train -config FILE writes a page that carries the file's
// experiment whole, its iterations box at the file's iterations.
func TestExportTrainPageConfig(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the WebAssembly trainer")
	}
	dir := t.TempDir()
	file, _ := myBoard(t, dir, false)
	want, err := experiments.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "train.html")
	if code, stdout, errs := runCmd("export", "-format", "html-train", "-config", file, "-o", out); code != 0 {
		t.Fatalf("exit %d: %s%s", code, stdout, errs)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`<script id="dlca-settings" type="application/json">(.*?)</script>`).FindSubmatch(b)
	if m == nil {
		t.Fatal("the page has no settings")
	}
	var settings struct {
		Experiment, Config string
		Iterations         int
	}
	if err := json.Unmarshal(m[1], &settings); err != nil {
		t.Fatal(err)
	}
	got, err := experiments.Parse([]byte(settings.Config), "the page's experiment")
	if err != nil {
		t.Fatalf("the page's experiment file: %v", err)
	}
	if settings.Experiment != "my-board" || settings.Iterations != want.Iterations || got.Name != "my-board" || got.LR != want.LR || got.Iterations != want.Iterations {
		t.Errorf("the page trains %q (file %q, lr %v) for %d iterations; want my-board, lr %v, the file's %d", settings.Experiment, got.Name, got.LR, settings.Iterations, want.LR, want.Iterations)
	}
}
