package circuit

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// needTool skips the test, saying why, when a program is not installed.
func needTool(t *testing.T, name, pkg string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s not installed (Debian package %s): skipping the export check that runs it", name, pkg)
	}
}

// run runs a command in dir and returns its standard output.
func run(t *testing.T, dir string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, errb.String())
	}
	return out.String()
}

// verilogBits writes bits (index 0 first) as a Verilog binary literal.
func verilogBits(bits []uint8) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%d'b", len(bits))
	for i := len(bits) - 1; i >= 0; i-- {
		sb.WriteByte('0' + bits[i])
	}
	return sb.String()
}

// parseBits reads a %b display (most significant bit first) into bits,
// index 0 first.
func parseBits(t *testing.T, s string, n int) []uint8 {
	t.Helper()
	s = strings.TrimSpace(s)
	if len(s) != n {
		t.Fatalf("got %d bits %q, want %d", len(s), s, n)
	}
	bits := make([]uint8, n)
	for i := range bits {
		bits[i] = s[n-1-i] - '0'
	}
	return bits
}

func writeVerilogFile(t *testing.T, dir string, nl *Netlist, o Options) {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteVerilog(&buf, nl, o); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, o.Name+".v"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestVerilogCellMatchesEval(t *testing.T) {
	needTool(t, "iverilog", "iverilog")
	rng := rand.New(rand.NewPCG(21, 0))
	nls := []*Netlist{LifeCircuit(), labelled(randomCA(rng, 3, 120)), wireConstCA()}
	// One testbench drives every netlist (module ruleI), so that Icarus
	// runs once: each line printed is "I outputs".
	dir := t.TempDir()
	var tb strings.Builder
	tb.WriteString("module tb;\n")
	files := []string{"tb.v"}
	type vector struct {
		nl int
		in []uint8
	}
	var vectors []vector
	for i, nl := range nls {
		writeVerilogFile(t, dir, nl, Options{Name: fmt.Sprintf("rule%d", i), Height: 4, Width: 4})
		files = append(files, fmt.Sprintf("rule%d.v", i))
		fmt.Fprintf(&tb, "  reg [%d:0] in%d;\n  wire [%d:0] out%d;\n  rule%d dut%d(.in(in%d), .out(out%d));\n",
			nl.NumInputs-1, i, nl.Channels()-1, i, i, i, i, i)
	}
	tb.WriteString("  initial begin\n")
	for i, nl := range nls {
		for range 100 {
			in := make([]uint8, nl.NumInputs)
			for k := range in {
				in[k] = uint8(rng.IntN(2))
			}
			vectors = append(vectors, vector{i, in})
			fmt.Fprintf(&tb, "    in%d = %s; #1 $display(\"%d %%b\", out%d);\n", i, verilogBits(in), i, i)
		}
	}
	tb.WriteString("  end\nendmodule\n")
	os.WriteFile(filepath.Join(dir, "tb.v"), []byte(tb.String()), 0o644)
	run(t, dir, "iverilog", append([]string{"-Wall", "-o", "sim"}, files...)...)
	lines := strings.Split(strings.TrimSpace(run(t, dir, "vvp", "-n", "sim")), "\n")
	if len(lines) != len(vectors) {
		t.Fatalf("vvp printed %d lines, want %d", len(lines), len(vectors))
	}
	for k, v := range vectors {
		nl := nls[v.nl]
		f := strings.Fields(lines[k])
		if len(f) != 2 || f[0] != strconv.Itoa(v.nl) {
			t.Fatalf("unexpected vvp line %q", lines[k])
		}
		got, want := parseBits(t, f[1], nl.Channels()), nl.Eval(v.in)
		if !bytes.Equal(got, want) {
			t.Fatalf("netlist %d, inputs %v: Verilog gives %v, Eval %v", v.nl, v.in, got, want)
		}
	}
}

// The grid wrapper against the simulator: load a random grid, one
// synchronous step, then asynchronous steps with the simulator's masks.
// The grid module runs with its default parameters, which must be the
// grid and boundary the export was given.
func TestVerilogGridMatchesSim(t *testing.T) {
	needTool(t, "iverilog", "iverilog")
	rng := rand.New(rand.NewPCG(22, 0))
	const h, w, steps = 5, 7, 4
	for _, b := range []Boundary{Periodic, Zero} {
		for _, nl := range []*Netlist{LifeCircuit(), randomCA(rng, 2, 80), wireConstCA()} {
			dir := t.TempDir()
			writeVerilogFile(t, dir, nl, Options{Name: "rule", Height: h, Width: w, Boundary: b})
			c := nl.Channels()
			g := NewGrid(h, w, c)
			g.Randomize(rng)
			var tb strings.Builder
			fmt.Fprintf(&tb, "module tb;\n  reg clk = 0, load = 1;\n  reg [%d:0] fire;\n  wire [%d:0] state;\n", h*w-1, h*w*c-1)
			fmt.Fprintf(&tb, "  rule_grid dut(.clk(clk), .load(load), .fire(fire), .init(%s), .state(state));\n", verilogBits(g.Unpack()))
			tb.WriteString("  initial begin\n    fire = 0; #1 clk = 1; #1 clk = 0; load = 0;\n")
			sim := NewSim(nl, b, 1)
			want := []*Grid{}
			cur := g
			for step := range steps {
				fire := make([]uint8, h*w)
				next := NewGrid(h, w, c)
				if step == 0 {
					for i := range fire {
						fire[i] = 1
					}
					sim.Step(next, cur)
				} else {
					sim.StepAsync(next, cur, 0.5, 8, step)
					m := make([]uint64, 1)
					for y := range h {
						FireMask(m, w, 0.5, 8, step, y)
						for x := range w {
							fire[y*w+x] = uint8(m[0] >> x & 1)
						}
					}
				}
				fmt.Fprintf(&tb, "    fire = %s; #1 clk = 1; #1 clk = 0; $display(\"%%b\", state);\n", verilogBits(fire))
				want = append(want, next)
				cur = next
			}
			tb.WriteString("  end\nendmodule\n")
			os.WriteFile(filepath.Join(dir, "tb.v"), []byte(tb.String()), 0o644)
			run(t, dir, "iverilog", "-Wall", "-o", "sim", "rule.v", "tb.v")
			lines := strings.Split(strings.TrimSpace(run(t, dir, "vvp", "-n", "sim")), "\n")
			if len(lines) != steps {
				t.Fatalf("vvp printed %d lines, want %d", len(lines), steps)
			}
			for step, line := range lines {
				got := FromCells(h, w, c, parseBits(t, line, h*w*c))
				if !got.Equal(want[step]) {
					t.Fatalf("%v, %d channels, step %d: Verilog grid differs from the simulator", b, c, step)
				}
			}
		}
	}
}

func TestExportRejectsBadInput(t *testing.T) {
	var buf bytes.Buffer
	ok := Options{Name: "ok", Height: 4, Width: 4}
	if err := WriteVerilog(&buf, LifeCircuit(), Options{Name: "1bad", Height: 4, Width: 4}); err == nil {
		t.Error("WriteVerilog accepted the name 1bad")
	}
	if err := WriteVerilog(&buf, &Netlist{NumInputs: 4, Outputs: []int32{0}}, ok); err == nil {
		t.Error("WriteVerilog accepted a netlist that is not a CA rule")
	}
	// The grid exports need the training grid: no silent default.
	writers := map[string]func(o Options) error{
		"Verilog":   func(o Options) error { return WriteVerilog(&buf, LifeCircuit(), o) },
		"C":         func(o Options) error { return WriteC(&buf, LifeCircuit(), o) },
		"C header":  func(o Options) error { return WriteCHeader(&buf, LifeCircuit(), o) },
		"testbench": func(o Options) error { return WriteVerilogTestbench(&buf, LifeCircuit(), o, NewGrid(4, 4, 1), 1) },
	}
	for what, write := range writers {
		for _, tc := range []struct {
			o    Options
			want string
		}{
			{Options{Name: "ok"}, "grid 0x0"},
			{Options{Name: "ok", Height: 4}, "grid 4x0"},
			{Options{Name: "ok", Height: 4, Width: 4, Boundary: 7}, "unknown Boundary(7)"},
		} {
			if err := write(tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s export with %+v: error %v, want one saying %q", what, tc.o, err, tc.want)
			}
		}
	}
	for _, tc := range []struct {
		init  *Grid
		steps int
		want  string
	}{
		{nil, 1, "must be 4x4 with 1 channel(s)"},
		{NewGrid(4, 5, 1), 1, "must be 4x4 with 1 channel(s)"},
		{NewGrid(4, 4, 2), 1, "must be 4x4 with 1 channel(s)"},
		{NewGrid(4, 4, 1), 0, "0 steps"},
	} {
		if err := WriteVerilogTestbench(&buf, LifeCircuit(), ok, tc.init, tc.steps); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("testbench of %d steps: error %v, want one saying %q", tc.steps, err, tc.want)
		}
	}
	// Keywords of either language would make output the compilers reject
	// (iverilog fails on "module cell", gcc on "void int(...)").
	for _, name := range []string{"cell", "module", "wire", "int", "static", "void"} {
		for _, f := range []Format{Verilog, C, DOT} { // DigitalJS documents carry no name
			if err := Write(&buf, LifeCircuit(), f, Options{Name: name, Height: 4, Width: 4}); err == nil || !strings.Contains(err.Error(), "reserved") {
				t.Errorf("%v export of name %q: error %v, want a reserved-word error", f, name, err)
			}
		}
	}
}

// The grid wrapper synthesizes: Yosys maps it to gates and exactly one
// flip-flop per cell and channel, and its check pass finds no problem.
func TestVerilogSynthesizes(t *testing.T) {
	needTool(t, "yosys", "yosys")
	rng := rand.New(rand.NewPCG(23, 0))
	nl := randomCA(rng, 2, 60)
	dir := t.TempDir()
	writeVerilogFile(t, dir, nl, Options{Name: "rule", Height: 16, Width: 16})
	const h, w = 3, 4
	out := run(t, dir, "yosys", "-p", fmt.Sprintf(
		"read_verilog rule.v; chparam -set H %d -set W %d rule_grid; synth -flatten -top rule_grid; check -assert; stat", h, w))
	stats := out[strings.LastIndex(out, "=== rule_grid ==="):]
	flops := 0
	for _, line := range strings.Split(stats, "\n") {
		if f := strings.Fields(line); len(f) == 2 && strings.HasPrefix(f[0], "$_") && strings.Contains(f[0], "DFF") {
			n, _ := strconv.Atoi(f[1])
			flops += n
		}
	}
	if want := h * w * nl.Channels(); flops != want {
		t.Errorf("synthesized %d flip-flops, want %d (one per cell and channel):\n%s", flops, want, stats)
	}
}

// runTestbench writes the grid modules of nl with options grid and the
// testbench with options bench (the same, unless a test wants them to
// disagree), runs them under Icarus and returns what vvp printed. perturb,
// when not nil, edits the testbench text first.
func runTestbench(t *testing.T, nl *Netlist, grid, bench Options, init *Grid, steps int, perturb func(string) string) string {
	t.Helper()
	dir := t.TempDir()
	writeVerilogFile(t, dir, nl, grid)
	var tb bytes.Buffer
	if err := WriteVerilogTestbench(&tb, nl, bench, init, steps); err != nil {
		t.Fatal(err)
	}
	text := tb.String()
	if perturb != nil {
		text = perturb(text)
	}
	os.WriteFile(filepath.Join(dir, "tb.v"), []byte(text), 0o644)
	run(t, dir, "iverilog", "-Wall", "-o", "sim", grid.Name+".v", "tb.v")
	return run(t, dir, "vvp", "-n", "sim")
}

// flipBit0 flips bit 0 (cell (0, 0), channel 0) of the literal assigned
// to expected[step] in a testbench.
func flipBit0(t *testing.T, tb string, step int) string {
	t.Helper()
	prefix := fmt.Sprintf("expected[%d] = ", step)
	i := strings.Index(tb, prefix)
	if i < 0 {
		t.Fatalf("the testbench assigns no %q", prefix)
	}
	end := i + strings.Index(tb[i:], ";") - 1 // the literal's last hex digit
	d, err := strconv.ParseUint(tb[end:end+1], 16, 4)
	if err != nil {
		t.Fatalf("expected[%d] does not end in a hex digit: %v", step, err)
	}
	return tb[:end] + strconv.FormatUint(d^1, 16) + tb[end+1:]
}

// The testbench passes on the learned circuits, each on its training
// boundary, and fails, naming the step and the cell count, when one
// expected bit is wrong or the grid module's boundary is not the one the
// simulator used.
func TestVerilogTestbench(t *testing.T) {
	needTool(t, "iverilog", "iverilog")
	rng := rand.New(rand.NewPCG(24, 0))
	for _, tc := range []struct {
		name  string
		o     Options
		steps int
	}{
		{"checkerboard", Options{Name: "checkerboard", Height: 16, Width: 16, Boundary: Zero}, 12},
		{"life", Options{Name: "life", Height: 9, Width: 11, Boundary: Periodic}, 8},
	} {
		nl := learned(t, tc.name)
		init := NewGrid(tc.o.Height, tc.o.Width, nl.Channels())
		init.Randomize(rng)
		cells := tc.o.Height * tc.o.Width
		out := runTestbench(t, nl, tc.o, tc.o, init, tc.steps, nil)
		for step := 1; step <= tc.steps; step++ {
			if line := fmt.Sprintf("step %d: 0 of %d cells differ\n", step, cells); !strings.Contains(out, line) {
				t.Errorf("%s: the testbench does not print %q:\n%s", tc.name, line, out)
			}
		}
		if !strings.Contains(out, "PASS: "+tc.name+"_grid matches the simulator for all") || strings.Contains(out, "FAIL") {
			t.Errorf("%s: the testbench does not pass:\n%s", tc.name, out)
		}

		out = runTestbench(t, nl, tc.o, tc.o, init, tc.steps, func(tb string) string { return flipBit0(t, tb, 3) })
		if !strings.Contains(out, fmt.Sprintf("step 3: 1 of %d cells differ", cells)) ||
			!strings.Contains(out, "FAIL: "+tc.name+"_grid differs from the simulator in 1 of") || strings.Contains(out, "PASS") {
			t.Errorf("%s: with one expected bit of step 3 flipped, the testbench does not fail there:\n%s", tc.name, out)
		}

		wrong := tc.o
		wrong.Boundary = 1 - tc.o.Boundary
		out = runTestbench(t, nl, wrong, tc.o, init, tc.steps, nil)
		if !strings.Contains(out, "FAIL") || strings.Contains(out, "PASS") {
			t.Errorf("%s: the grid module with the %v boundary passes a testbench of the %v boundary:\n%s", tc.name, wrong.Boundary, tc.o.Boundary, out)
		}
	}
}
