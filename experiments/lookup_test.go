package experiments

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/dlca"
)

// writeConfig writes c as an experiment file at path.
func writeConfig(t *testing.T, c *Config, path string) {
	t.Helper()
	var text strings.Builder
	if err := c.WriteTOML(&text); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Lookup reads a built-in name as the built-in experiment and a path as an
// experiment file; an unknown name's error says a file would do.
func TestLookup(t *testing.T) {
	dir := t.TempDir()
	c, _ := Builtin("checkerboard-small")
	builtin := c.Iterations
	c.Name, c.Iterations = "mine", builtin+7
	file := filepath.Join(dir, "mine.toml")
	writeConfig(t, c, file)
	for _, tc := range []struct {
		arg, name  string
		iterations int
	}{
		{"checkerboard-small", "checkerboard-small", builtin},
		{file, "mine", builtin + 7},
	} {
		got, err := Lookup(tc.arg)
		if err != nil {
			t.Fatalf("Lookup(%q): %v", tc.arg, err)
		}
		want, _ := Builtin("checkerboard-small")
		if got.Name != tc.name || got.Iterations != tc.iterations || got.Height != want.Height {
			t.Errorf("Lookup(%q) = %s with %d iterations on %d rows, want %s with %d on %d", tc.arg, got.Name, got.Iterations, got.Height, tc.name, tc.iterations, want.Height)
		}
	}
	for arg, want := range map[string]string{
		"checkerbored":                           "or give an experiment file",
		filepath.Join(dir, "missing.toml"):       "cannot read the experiment file",
		filepath.Join(dir, "sub", "no-ext-file"): "cannot read the experiment file",
	} {
		if _, err := Lookup(arg); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Lookup(%q): error %v, want one saying %q", arg, err, want)
		}
	}
}

// ForModel takes the experiment named over the one the model records,
// the recorded one over the fallback, and refuses one whose channels are
// not the model's.
func TestForModel(t *testing.T) {
	dir := t.TempDir()
	c, _ := Builtin("checkerboard-small")
	c.Name = "mine"
	file := filepath.Join(dir, "mine.toml")
	writeConfig(t, c, file)
	e, err := c.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	bare, err := dlca.New(e.Model, autograd.Float32)
	if err != nil {
		t.Fatal(err)
	}
	recorded, _ := dlca.New(e.Model, autograd.Float32)
	if recorded.Experiment, err = json.Marshal(e.Config); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name                 string
		m                    *dlca.Model
		experiment, fallback string
		want                 string // "" for none
	}{
		{"recorded", recorded, "", "", "mine"},
		{"recorded over fallback", recorded, "", "checkerboard", "mine"},
		{"named over recorded", recorded, "checkerboard-small", "", "checkerboard-small"},
		{"a file named", bare, file, "", "mine"},
		{"fallback", bare, "", "checkerboard-small", "checkerboard-small"},
		{"none", bare, "", "", ""},
	} {
		got, err := ForModel(tc.m, "model.json", tc.experiment, tc.fallback)
		switch {
		case err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want == "" && got != nil:
			t.Errorf("%s: got experiment %s, want none", tc.name, got.Name)
		case tc.want != "" && (got == nil || got.Name != tc.want):
			t.Errorf("%s: got %+v, want experiment %s", tc.name, got, tc.want)
		}
	}
	if _, err := ForModel(bare, "model.json", "colour-g", ""); err == nil || !strings.Contains(err.Error(), "channels") {
		t.Errorf("a colour-g experiment for an 8-channel model: error %v, want one about channels", err)
	}
}
