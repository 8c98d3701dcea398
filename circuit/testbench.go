package circuit

import (
	"fmt"
	"io"
	"math"
	"math/big"
)

// WriteVerilogTestbench writes a self-checking Verilog testbench, module
// NAME_tb, for the modules WriteVerilog writes with the same netlist and
// options. It loads init into NAME_grid, instantiated with its default
// parameters (the grid and boundary of o, so that the test also checks
// them), runs steps synchronous steps and compares each state with the one
// the simulator (Sim) computes, embedded in the file. It prints, per step,
// how many cells have a channel that differs, then a line starting with
// PASS or FAIL, and ends the simulation with $finish:
//
//	iverilog -o sim rule.v rule_tb.v && vvp -n sim
//
// init must be a grid of o's size with the netlist's channel count.
func WriteVerilogTestbench(w io.Writer, nl *Netlist, o Options, init *Grid, steps int) error {
	if err := checkGridExport(nl, o, "Verilog testbench"); err != nil {
		return err
	}
	c := nl.Channels()
	switch {
	case init == nil || init.H != o.Height || init.W != o.Width || init.C != c:
		return fmt.Errorf("circuit: Verilog testbench: the initial grid must be %dx%d with %d channel(s), the rule's training grid", o.Height, o.Width, c)
	case steps < 1:
		return fmt.Errorf("circuit: Verilog testbench: %d steps: want at least 1", steps)
	}
	name := o.Name
	e := &errWriter{w: w}
	e.printf("// %s_tb: runs %s_grid (with its default parameters: %dx%d, PERIODIC = %d)\n", name, name, o.Height, o.Width, periodic(o.Boundary))
	e.printf("// for %d synchronous step(s) from a fixed initial state and compares each\n", steps)
	e.printf("// state with the one github.com/dlca/dlca/circuit's simulator computed.\n")
	e.printf("// It prints how many cells differ after each step, then PASS or FAIL.\n")
	e.printf("//   iverilog -o sim %s.v %s_tb.v && vvp -n sim\n", name, name)
	e.printf("module %s_tb;\n", name)
	e.printf("  localparam H = %d, W = %d, C = %d, STEPS = %d;\n", o.Height, o.Width, c, steps)
	e.printf("  reg clk = 0, load = 1;\n  reg [H*W*C-1:0] init;\n  wire [H*W*C-1:0] state;\n")
	e.printf("  reg [H*W*C-1:0] expected [1:STEPS];\n  reg [H*W*C-1:0] diff;\n")
	e.printf("  integer step, i, wrong, failed;\n")
	e.printf("  %s_grid dut(.clk(clk), .load(load), .fire({H*W{1'b1}}), .init(init), .state(state));\n", name)
	e.printf("  initial begin\n")
	e.printf("    // Cell (y, x) channel c is bit (y*W + x)*C + c.\n")
	e.printf("    init = %s;\n", verilogHex(init))
	sim := NewSim(nl, o.Boundary, 1)
	cur, next := init.Clone(), NewGrid(init.H, init.W, c)
	for step := 1; step <= steps && e.err == nil; step++ { // a failed write (or a writer that stops) ends the loop
		sim.Step(next, cur)
		cur, next = next, cur
		e.printf("    expected[%d] = %s;\n", step, verilogHex(cur))
	}
	e.printf("    #1 clk = 1; #1 clk = 0; load = 0;\n    failed = 0;\n")
	e.printf("    for (step = 1; step <= STEPS; step = step + 1) begin\n")
	e.printf("      #1 clk = 1; #1 clk = 0;\n")
	e.printf("      diff = state ^ expected[step];\n      wrong = 0;\n")
	e.printf("      // !== counts unknown (x) bits as wrong too.\n")
	e.printf("      for (i = 0; i < H*W; i = i + 1)\n")
	e.printf("        if (diff[i*C +: C] !== {C{1'b0}}) wrong = wrong + 1;\n")
	e.printf("      $display(\"step %%0d: %%0d of %%0d cells differ\", step, wrong, H*W);\n")
	e.printf("      if (wrong != 0) failed = failed + 1;\n    end\n")
	e.printf("    if (failed == 0) $display(\"PASS: %s_grid matches the simulator for all %%0d steps\", STEPS);\n", name)
	e.printf("    else $display(\"FAIL: %s_grid differs from the simulator in %%0d of %%0d steps\", failed, STEPS);\n", name)
	e.printf("    $finish;\n  end\nendmodule\n")
	return e.err
}

// VerilogTestbenchSize returns, within a few bytes, the size of the
// testbench WriteVerilogTestbench writes for a grid of h x w cells of c
// channels and steps steps (a name of nameLen bytes): one literal of the
// grid's bits a step, so that a command can refuse a testbench larger than
// the disk before writing it. It saturates at the largest int64.
func VerilogTestbenchSize(h, w, c, steps, nameLen int) int64 {
	bits := float64(h) * float64(w) * float64(c)
	literal := float64(len(fmt.Sprint(int64(bits)))) + 2 + math.Ceil(bits/4) // BITS'hHEX
	perStep := float64(len("    expected[] = ;\n")) + float64(len(fmt.Sprint(steps))) + literal
	total := 2000 + 12*float64(nameLen) + literal + float64(steps)*perStep
	if total >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(total)
}

// verilogHex writes the grid's cells as one Verilog hexadecimal literal,
// cell (y, x) channel c in bit (y*W+x)*C + c as Grid.Cells orders them.
func verilogHex(g *Grid) string {
	var v big.Int
	for i, b := range g.Unpack() {
		if b != 0 {
			v.SetBit(&v, i, 1)
		}
	}
	return fmt.Sprintf("%d'h%x", g.H*g.W*g.C, &v)
}
