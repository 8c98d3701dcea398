package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/experiments"
	"github.com/dlca/dlca/gates"
)

// exportModel saves a model of dlca's tiny test config whose gates are
// random ops (none a pass-through), so that its circuit has gates in both
// networks, and returns the model and its path.
func exportModel(t *testing.T, dir string) (*dlca.Model, string) {
	t.Helper()
	m, err := dlca.Load(filepath.Join("..", "..", "dlca", "testdata", "model-tiny.json"))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 0))
	for _, l := range m.Layers() {
		for g := range l.Logits.Len() / gates.NumOps {
			op := gates.Op(rng.IntN(gates.NumOps))
			for op == gates.A || op == gates.B {
				op = gates.Op(rng.IntN(gates.NumOps))
			}
			l.Logits.SetAt(g*gates.NumOps+int(op), 20)
		}
	}
	path := filepath.Join(dir, "model.json")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	return m, path
}

func TestExportBadFlags(t *testing.T) {
	dir := t.TempDir()
	_, model := exportModel(t, dir)
	out := filepath.Join(dir, "rule.v")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown flag", []string{"export", "-colour", "red"}, 2, "flag provided but not defined"},
		{"without model", []string{"export", "-o", out}, 1, "-model is required"},
		{"without output", []string{"export", "-model", model}, 1, "-o is required"},
		{"stray argument", []string{"export", "-model", model, "-o", out, "extra"}, 1, "unexpected argument"},
		{"unknown format", []string{"export", "-model", model, "-o", out, "-format", "vhdl"}, 1, `unknown export format "vhdl"`},
		{"missing model", []string{"export", "-model", filepath.Join(dir, "none.json"), "-o", out}, 1, "cannot open"},
		{"not an identifier", []string{"export", "-model", model, "-o", out, "-name", "2fast"}, 1, "not an identifier"},
		{"unwritable output", []string{"export", "-model", model, "-o", filepath.Join(dir, "no-dir", "rule.v")}, 1, "cannot write"},
		{"header for verilog", []string{"export", "-model", model, "-o", out, "-header", filepath.Join(dir, "rule.h")}, 1, "-header is for -format c"},
		{"testbench for c", []string{"export", "-model", model, "-o", out, "-format", "c", "-testbench", filepath.Join(dir, "tb.v")}, 1, "-testbench is for -format verilog"},
		{"no steps", []string{"export", "-model", model, "-o", out, "-testbench", filepath.Join(dir, "tb.v"), "-steps", "0"}, 1, "-steps 0"},
		{"testbench over output", []string{"export", "-model", model, "-o", out, "-testbench", out}, 1, "is the -o file"},
		{"header over model", []string{"export", "-model", model, "-o", out, "-format", "c", "-header", model}, 1, "is the model file"},
		{"both on stdout", []string{"export", "-model", model, "-o", "-", "-testbench", "-"}, 1, "standard output already"},
		{"unknown experiment", []string{"export", "-model", model, "-o", out, "-testbench", filepath.Join(dir, "tb.v"), "-experiment", "chess"}, 1, "chess"},
		{"keep no number", []string{"export", "-model", model, "-o", out, "-keep", "red"}, 1, "want channel numbers"},
		{"keep no channel", []string{"export", "-model", model, "-o", out, "-keep", "0,5"}, 1, "channels 0 to 1"},
		{"experiment of other channels", []string{"export", "-model", model, "-o", out, "-testbench", filepath.Join(dir, "tb.v"), "-experiment", "checkerboard-small"}, 1, "has 2 channels but experiment checkerboard-small has 8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := runCmd(tc.args...)
			if code != tc.code || !strings.Contains(errs, tc.want) {
				t.Fatalf("exit %d, stderr %q; want exit %d mentioning %q", code, errs, tc.code, tc.want)
			}
		})
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("failed exports left files behind: %v", entries)
	}
}

// readNetlist reads an exported JSON netlist (circuit.ReadNetlist
// validates it).
func readNetlist(t *testing.T, path string) *circuit.Netlist {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	nl, err := circuit.ReadNetlist(f)
	if err != nil {
		t.Fatal(err)
	}
	return nl
}

// -keep prunes the rule as circuit.KeepChannels does, and says what it kept.
func TestExportKeep(t *testing.T) {
	dir := t.TempDir()
	m, model := exportModel(t, dir)
	path := filepath.Join(dir, "rule.json")
	code, out, errs := runCmd("export", "-model", model, "-format", "json", "-o", path, "-simplify=false", "-keep", "1")
	if code != 0 || !strings.Contains(out, "-keep 1: channels [") {
		t.Fatalf("export: exit %d: %s%s", code, out, errs)
	}
	nl := readNetlist(t, path)
	want, _, err := circuit.KeepChannels(m.Netlist(), []int{1})
	if err != nil {
		t.Fatal(err)
	}
	if !nl.Equal(want) {
		t.Error("the -keep export differs from circuit.KeepChannels")
	}
}

// Every format is written; the JSON netlist reads back (circuit.ReadNetlist
// validates it) and computes the model's rule, simplified or not, and the
// report counts both networks.
func TestExportWritesEveryFormat(t *testing.T) {
	dir := t.TempDir()
	m, model := exportModel(t, dir)
	for _, simplify := range []string{"true", "false"} {
		path := filepath.Join(dir, "rule-"+simplify+".json")
		code, out, errs := runCmd("export", "-model", model, "-format", "json", "-o", path, "-simplify="+simplify)
		if code != 0 || !strings.Contains(out, "wrote "+path) {
			t.Fatalf("export: exit %d: %s%s", code, out, errs)
		}
		if report := strings.Contains(out, "perception") && strings.Contains(out, "update"); report != (simplify == "true") {
			t.Fatalf("-simplify=%s: report of both networks printed = %v:\n%s", simplify, report, out)
		}
		nl := readNetlist(t, path)
		if simplify == "false" && !nl.Equal(m.Netlist()) {
			t.Fatal("the unsimplified export differs from the model's netlist")
		}
		if mm, err := circuit.Equivalent(m.Netlist(), nl, 4096, 1); err != nil || mm != nil {
			t.Fatalf("-simplify=%s: the exported netlist computes another rule: %v %v", simplify, mm, err)
		}
	}
	for _, tc := range []struct {
		format, want string
		check        []string // a tool that parses the file, if installed
	}{
		// NOTE: never -o /dev/null: iverilog marks its output executable, and
		// run as root it turned /dev/null into mode 0755 for the machine.
		{"verilog", "module ca_rule", []string{"iverilog", "-o", filepath.Join(dir, "rule.vvp")}},
		{"c", "void ca_rule_step(", []string{"cc", "-std=c99", "-fsyntax-only"}},
		{"dot", "digraph ca_rule", []string{"dot", "-Tsvg", "-o", filepath.Join(dir, "rule.svg")}},
		{"digitaljs", `"devices"`, nil},
	} {
		f, err := circuit.ParseFormat(tc.format)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "rule"+f.Ext())

		if code, out, errs := runCmd("export", "-model", model, "-format", tc.format, "-name", "ca_rule", "-o", path); code != 0 {
			t.Fatalf("%s: exit %d: %s%s", tc.format, code, out, errs)
		}
		b, err := os.ReadFile(path)
		if err != nil || !strings.Contains(string(b), tc.want) {
			t.Fatalf("%s export lacks %q: %v\n%s", tc.format, tc.want, err, b)
		}
		if tc.format == "digitaljs" && !json.Valid(b) {
			t.Fatal("the DigitalJS export is not valid JSON")
		}
		if tc.check == nil {
			continue
		}
		if _, err := exec.LookPath(tc.check[0]); err != nil {
			t.Logf("%s not installed: the %s export is not parsed", tc.check[0], tc.format)
			continue
		}
		if msg, err := exec.Command(tc.check[0], append(tc.check[1:], path)...).CombinedOutput(); err != nil {
			t.Fatalf("%s rejects the %s export: %v\n%s", tc.check[0], tc.format, err, msg)
		}
	}
}

// needTool skips the test, saying why, when a program is not installed.
func needTool(t *testing.T, name, pkg string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s not installed (Debian package %s): skipping the export check that runs it", name, pkg)
	}
}

// saveVariant saves model m with its training grid set to h x w and
// boundary b (the gates stay the same) as name in dir.
func saveVariant(t *testing.T, m *dlca.Model, dir, name string, h, w int, b circuit.Boundary) string {
	t.Helper()
	m.Config.Height, m.Config.Width, m.Config.Boundary = h, w, b
	path := filepath.Join(dir, name)
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// runTool runs a program in dir and returns its output, failing the test
// when it fails.
func runTool(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}

// -testbench writes a testbench that checks the exported grid module, with
// its default parameters, against the simulator: it passes for models with
// the zero and the periodic boundary (and a training grid that is not
// square), from random bits or an experiment's initial state, and fails
// when the grid module was exported for another boundary.
func TestExportTestbench(t *testing.T) {
	needTool(t, "iverilog", "iverilog")
	dir := t.TempDir()
	m, _ := exportModel(t, dir)
	zero := saveVariant(t, m, dir, "zero.json", 5, 6, circuit.Zero)
	periodic := saveVariant(t, m, dir, "periodic.json", 5, 6, circuit.Periodic)
	e, _ := experiments.Get("checkerboard-small")
	board, err := dlca.New(e.Model, autograd.Float32)
	if err != nil {
		t.Fatal(err)
	}
	boardPath := filepath.Join(dir, "board.json")
	if err := board.Save(boardPath); err != nil {
		t.Fatal(err)
	}
	export := func(model, name string, extra ...string) {
		t.Helper()
		args := append([]string{"export", "-model", model, "-name", name, "-o", filepath.Join(dir, name+".v"),
			"-testbench", filepath.Join(dir, name+"_tb.v")}, extra...)
		if code, out, errs := runCmd(args...); code != 0 || !strings.Contains(out, "wrote "+filepath.Join(dir, name+"_tb.v")) {
			t.Fatalf("%v: exit %d: %s%s", args, code, out, errs)
		}
	}
	for _, tc := range []struct {
		model, name, boundary string
		extra                 []string
		cells, steps          int
	}{
		{zero, "zero", "zero", []string{"-steps", "7"}, 30, 7},
		{periodic, "periodic", "periodic", []string{"-steps", "7"}, 30, 7},
		{boardPath, "board", "zero", []string{"-experiment", "checkerboard-small", "-seed", "4"}, 64, 20},
	} {
		export(tc.model, tc.name, tc.extra...)
		rule, err := os.ReadFile(filepath.Join(dir, tc.name+".v"))
		if err != nil {
			t.Fatal(err)
		}
		if want := "with the " + tc.boundary + " boundary"; !strings.Contains(string(rule), want) {
			t.Errorf("%s: the Verilog header comment does not say %q", tc.name, want)
		}
		runTool(t, dir, "iverilog", "-Wall", "-o", tc.name+".vvp", tc.name+".v", tc.name+"_tb.v")
		out := runTool(t, dir, "vvp", "-n", tc.name+".vvp")
		last := fmt.Sprintf("step %d: 0 of %d cells differ", tc.steps, tc.cells)
		if !strings.Contains(out, "PASS") || strings.Contains(out, "FAIL") || !strings.Contains(out, last) {
			t.Errorf("%s: the testbench does not pass through %q:\n%s", tc.name, last, out)
		}
	}
	// The periodic model's grid module under the zero model's testbench:
	// the same gates, another boundary.
	// The modules are named after -name: rename the testbench's instance.
	tb, _ := os.ReadFile(filepath.Join(dir, "zero_tb.v"))
	cross := strings.ReplaceAll(string(tb), "zero_grid", "periodic_grid")
	os.WriteFile(filepath.Join(dir, "cross_tb.v"), []byte(cross), 0o644)
	runTool(t, dir, "iverilog", "-o", "cross.vvp", "periodic.v", "cross_tb.v")
	if out := runTool(t, dir, "vvp", "-n", "cross.vvp"); !strings.Contains(out, "FAIL") || strings.Contains(out, "PASS") {
		t.Errorf("the periodic grid module passes the zero-boundary testbench:\n%s", out)
	}
}

// cHeaderMain uses only what the header declares: it prints the training
// grid's macros and runs one step on that grid.
const cHeaderMain = `#include <stdio.h>
#include <stdlib.h>
#include "rule.h"
int main(void) {
  size_t n = ca_rule_GRID_WORDS(ca_rule_HEIGHT, ca_rule_WIDTH);
  uint64_t *a = calloc(n, 8), *b = calloc(n, 8);
  if (!a || !b) return 2;
  ca_rule_step(ca_rule_HEIGHT, ca_rule_WIDTH, ca_rule_PERIODIC, a, b, NULL);
  printf("%d %d %d %d %zu\n", ca_rule_HEIGHT, ca_rule_WIDTH, ca_rule_PERIODIC, ca_rule_CHANNELS, n);
  return 0;
}
`

// -format c writes the header beside the source (rule.c, rule.h), or to
// -header; a program using only the header compiles warning-free and sees
// the model's grid. (TestOutputToStdout covers -o -: the source alone.)
func TestExportCHeader(t *testing.T) {
	dir := t.TempDir()
	m, _ := exportModel(t, dir)
	model := saveVariant(t, m, dir, "model.json", 3, 70, circuit.Zero)
	src := filepath.Join(dir, "rule.c")
	code, out, errs := runCmd("export", "-model", model, "-format", "c", "-name", "ca_rule", "-o", src)
	if code != 0 || !strings.Contains(out, "wrote "+filepath.Join(dir, "rule.h")) {
		t.Fatalf("export: exit %d: %s%s", code, out, errs)
	}
	h, err := os.ReadFile(filepath.Join(dir, "rule.h"))
	if err != nil || !strings.Contains(string(h), "void ca_rule_step(") || !strings.Contains(string(h), "3x70 grid with the zero boundary") {
		t.Fatalf("the header lacks the step function or the training grid: %v\n%s", err, h)
	}
	other := filepath.Join(dir, "include", "api.h")
	os.Mkdir(filepath.Dir(other), 0o755)
	if code, out, errs := runCmd("export", "-model", model, "-format", "c", "-name", "ca_rule", "-o", filepath.Join(dir, "api.c"), "-header", other); code != 0 || !strings.Contains(out, "wrote "+other) {
		t.Fatalf("export -header: exit %d: %s%s", code, out, errs)
	}
	if b, err := os.ReadFile(other); err != nil || string(b) != string(h) {
		t.Errorf("-header %s did not get the header: %v", other, err)
	}

	needTool(t, "gcc", "gcc")
	os.WriteFile(filepath.Join(dir, "main.c"), []byte(cHeaderMain), 0o644)
	runTool(t, dir, "gcc", "-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-o", "main", "main.c", "rule.c")
	if got, want := strings.TrimSpace(runTool(t, dir, "./main")), "3 70 0 2 12"; got != want {
		t.Errorf("the header's HEIGHT WIDTH PERIODIC CHANNELS GRID_WORDS are %q, want %q", got, want)
	}
}

// TestExportCKeepsUsersHeader: the header that -o rule.c implies replaces
// only a header an earlier export wrote; a rule.h of the user's own is
// refused, untouched, and -header names another place.
func TestExportCKeepsUsersHeader(t *testing.T) {
	dir := t.TempDir()
	m, _ := exportModel(t, dir)
	model := saveVariant(t, m, dir, "model.json", 3, 70, circuit.Zero)
	src, hdr := filepath.Join(dir, "rule.c"), filepath.Join(dir, "rule.h")
	export := func() (int, string) {
		code, _, errs := runCmd("export", "-model", model, "-format", "c", "-o", src)
		return code, errs
	}
	if code, errs := export(); code != 0 {
		t.Fatalf("first export: exit %d: %s", code, errs)
	}
	if code, errs := export(); code != 0 {
		t.Fatalf("export again over its own header: exit %d: %s", code, errs)
	}
	mine := "/* my own declarations */\n"
	os.WriteFile(hdr, []byte(mine), 0o644)
	if code, errs := export(); code == 0 || !strings.Contains(errs, "was not written by dlca export") {
		t.Fatalf("export over the user's rule.h: exit %d: %s", code, errs)
	}
	if b, _ := os.ReadFile(hdr); string(b) != mine {
		t.Errorf("the user's rule.h was changed to %q", b)
	}
}
