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
		// The 8x8 target is the checkerboard of 2x2 squares, packed LSB first.
		target, err := base64.StdEncoding.DecodeString(d.Sizes[0].Target)
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
	if code, _, errs := runCmd("export", "-model", tiny, "-format", "html", "-experiment", "checkerboard", "-o", filepath.Join(dir, "x.html")); code != 1 || !strings.Contains(errs, "pass the right -experiment") {
		t.Errorf("a 2-channel model as the checkerboard: exit %d, %s", code, errs)
	}
}

// -format html-train refuses bad flags before building anything.
func TestExportTrainPageBadFlags(t *testing.T) {
	out := filepath.Join(t.TempDir(), "train.html")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-o", out}, "needs -experiment"},
		{[]string{"-experiment", "nope", "-o", out}, `unknown experiment "nope"`},
		{[]string{"-experiment", "checkerboard-small"}, "-o is required"},
		{[]string{"-experiment", "checkerboard-small", "-iterations", "-1", "-o", out}, "must not be negative"},
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
