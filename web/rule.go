package web

import (
	"fmt"
	"io"
	"strings"

	"github.com/dlca/dlca/circuit"
)

// RuleJS writes the netlist's update rule as a JavaScript function
//
//	function rule(sh, out, ww, words)
//
// that computes words 32-bit words of every output channel at once: out[c]
// is channel c's next plane (an Int32Array), and sh[c*3+dx] holds channel
// c's rows shifted as seen from each cell's west neighbour (dx = 0), the
// cell itself (1) and its east neighbour (2), with one halo row above and
// below, so that neighbour n = 3*dy+dx of word i is sh[c*3+dx][i+dy*ww].
// Gates that reach no output are left out; each gate is one local
// constant, so the JIT keeps the circuit in registers.
func RuleJS(w io.Writer, nl *circuit.Netlist) error {
	if err := nl.Validate(); err != nil {
		return fmt.Errorf("web: %w", err)
	}
	if !nl.IsCA() {
		return fmt.Errorf("web: the page needs a cellular-automaton netlist (9*C inputs for C outputs), got %d inputs and %d outputs", nl.NumInputs, len(nl.Outputs))
	}
	nl = circuit.RemoveDead(nl)
	c := nl.Channels()
	used := make([]bool, nl.NumInputs)
	mark := func(v int32) {
		if int(v) < nl.NumInputs {
			used[v] = true
		}
	}
	for _, g := range nl.Gates {
		mark(g.A)
		mark(g.B)
	}
	for _, o := range nl.Outputs {
		mark(o)
	}
	name := func(v int32) string {
		if int(v) < nl.NumInputs {
			return fmt.Sprintf("i%d", v)
		}
		return fmt.Sprintf("g%d", int(v)-nl.NumInputs)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "// The rule: %d channels, %d gates, 32 cells per word.\n", c, len(nl.Gates))
	b.WriteString("function rule(sh, out, ww, words) {\n")
	planes := make([]bool, 3*c)
	for v, u := range used {
		if u {
			n, ch := v/c, v%c
			planes[ch*3+n%3] = true
		}
	}
	for p, u := range planes {
		if u {
			fmt.Fprintf(&b, "  const s%d = sh[%d];\n", p, p)
		}
	}
	for ch := range c {
		fmt.Fprintf(&b, "  const o%d = out[%d];\n", ch, ch)
	}
	b.WriteString("  const r2 = 2 * ww;\n")
	b.WriteString("  for (let i = 0; i < words; i++) {\n")
	offset := [3]string{"i", "i + ww", "i + r2"}
	for v, u := range used {
		if u {
			n, ch := v/c, v%c
			fmt.Fprintf(&b, "    const i%d = s%d[%s];\n", v, ch*3+n%3, offset[n/3])
		}
	}
	for k, g := range nl.Gates {
		fmt.Fprintf(&b, "    const g%d = %s;\n", k, circuit.OpExpr(g.Op, name(g.A), name(g.B)))
	}
	for ch, o := range nl.Outputs {
		fmt.Fprintf(&b, "    o%d[i] = %s;\n", ch, name(o))
	}
	b.WriteString("  }\n}\n")
	_, err := io.WriteString(w, b.String())
	return err
}
