package circuit

import "io"

// WriteVerilog writes the netlist as two synthesizable Verilog modules:
//
//	module NAME(input wire [9*C-1:0] in, output wire [C-1:0] out);
//
// one cell's update, combinational, with in[n*C+c] channel c of neighbour
// n (row-major 3x3, 4 = the cell) and out[c] the next state's channel c;
// and
//
//	module NAME_grid #(H, W, PERIODIC) (clk, load, fire, init, state);
//
// an H x W grid of NAME cells in registers. On each rising clock edge the
// grid loads init if load is high, else each cell whose fire bit is set
// takes its next state (set every fire bit for a synchronous step). Cell
// (y, x) channel c is bit (y*W+x)*C + c of state and init; its fire bit is
// y*W+x. PERIODIC = 1 wraps the grid around, 0 pads it with zeros. The
// parameters default to the grid of o (the rule's training grid), which
// the header comment names.
func WriteVerilog(w io.Writer, nl *Netlist, o Options) error {
	if err := checkGridExport(nl, o, "Verilog"); err != nil {
		return err
	}
	name, c := o.Name, nl.Channels()
	e := &errWriter{w: w}
	val := func(v int32) string { return nl.valueName(v, "in[%d]", "g%d") }
	e.printf("// %s: one cell's update rule of a logic-gate cellular automaton with\n", name)
	e.printf("// %d channel(s), %d gates. in[n*%d+c] is channel c of neighbour n of the\n", c, len(nl.Gates), c)
	e.printf("// 3x3 neighbourhood (row-major, 4 = the cell itself); out[c] is channel c\n// of the cell's next state. " + Generated + "\n")
	e.printf("// The rule was %s:\n", o.describe("\n// "))
	e.printf("// %s_grid's parameters default to that grid (H = %d, W = %d, PERIODIC = %d).\n", name, o.Height, o.Width, periodic(o.Boundary))
	e.printf("module %s (\n  input  wire [%d:0] in,\n  output wire [%d:0] out\n);\n", name, 9*c-1, c-1)
	for k, g := range nl.Gates {
		e.printf("  wire g%d = %s;", k, expr(g.Op, val(g.A), val(g.B)))
		if l := nl.label(k); l != "" {
			e.printf(" // %s", l)
		}
		e.printf("\n")
	}
	for j, o := range nl.Outputs {
		e.printf("  assign out[%d] = %s;\n", j, val(o))
	}
	e.printf("endmodule\n\n")

	e.printf("// %s_grid: an H x W grid of %s cells, updated on each rising clock edge.\n", name, name)
	e.printf("// load: take init. Otherwise cell (y, x) takes its next state where\n// fire[y*W+x] is set (all set: a synchronous step) and keeps it elsewhere.\n")
	e.printf("// Cell (y, x) channel c is bit (y*W+x)*%d+c of init and state.\n", c)
	e.printf("// PERIODIC = 1 wraps the grid into a torus; 0 pads it with zero cells.\n")
	e.printf("// The defaults are the training grid: change them and the rule may not\n// do what it learned.\n")
	e.printf("module %s_grid #(\n  parameter H = %d,\n  parameter W = %d,\n  parameter PERIODIC = %d\n) (\n", name, o.Height, o.Width, periodic(o.Boundary))
	e.printf("  input  wire clk,\n  input  wire load,\n  input  wire [H*W-1:0] fire,\n")
	e.printf("  input  wire [H*W*%d-1:0] init,\n  output reg  [H*W*%d-1:0] state\n);\n", c, c)
	e.printf("  localparam C = %d;\n", c)
	e.printf("  wire [H*W*C-1:0] next;\n  genvar y, x;\n  generate\n")
	e.printf("    for (y = 0; y < H; y = y + 1) begin : row\n      for (x = 0; x < W; x = x + 1) begin : col\n")
	e.printf("        wire [9*C-1:0] nb;\n        wire [C-1:0] out;\n")
	for n := 0; n < 9; n++ {
		dy, dx := n/3-1, n%3-1
		inside := "1"
		var conds []string
		switch dy {
		case -1:
			conds = append(conds, "y >= 1")
		case 1:
			conds = append(conds, "y + 1 < H")
		}
		switch dx {
		case -1:
			conds = append(conds, "x >= 1")
		case 1:
			conds = append(conds, "x + 1 < W")
		}
		for i, s := range conds {
			if i == 0 {
				inside = s
			} else {
				inside += " && " + s
			}
		}
		e.printf("        // neighbour %d: %s\n", n, neighbourName[n])
		e.printf("        if (PERIODIC || (%s)) begin : n%d\n", inside, n)
		e.printf("          assign nb[%d*C +: C] = state[(((y + H + %d) %% H) * W + (x + W + %d) %% W) * C +: C];\n", n, dy, dx)
		e.printf("        end else begin : z%d\n          assign nb[%d*C +: C] = {C{1'b0}};\n        end\n", n, n)
	}
	e.printf("        %s u_cell (.in(nb), .out(out));\n", name)
	e.printf("        assign next[(y*W + x)*C +: C] = fire[y*W + x] ? out : state[(y*W + x)*C +: C];\n")
	e.printf("      end\n    end\n  endgenerate\n")
	e.printf("  always @(posedge clk) state <= load ? init : next;\nendmodule\n")
	return e.err
}

// periodic is the Verilog PERIODIC parameter (and the C step's periodic
// argument) of boundary b: 1 for a torus, 0 for zero cells beyond the edges.
func periodic(b Boundary) int {
	if b == Periodic {
		return 1
	}
	return 0
}
