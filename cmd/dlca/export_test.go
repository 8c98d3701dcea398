package main

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/dlca"
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
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		nl, err := circuit.ReadNetlist(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
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
