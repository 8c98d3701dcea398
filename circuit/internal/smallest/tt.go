package smallest

import (
	"fmt"

	"github.com/dlca/dlca/gates"
)

// TT is the truth table of a function of four inputs: bit r is its value
// when input i is bit i of r.
type TT uint16

// Vars are the truth tables of the four inputs.
var Vars = [4]TT{0xaaaa, 0xcccc, 0xf0f0, 0xff00}

// apply returns the truth table of op o applied to a and b.
func apply(o gates.Op, a, b TT) TT { return TT(o.Word(uint64(a), uint64(b))) }

// A Gate applies Op to two operands: operand i < 4 is input i, 4+k is the
// circuit's gate k.
type Gate struct {
	Op   gates.Op
	A, B uint8
}

// Const is the Out of a circuit computing a constant (0, or 1 with Not).
const Const = 0xff

// A Circuit computes a function of four inputs with Gates, in topological
// order. Its value is operand Out (an input or a gate; Const for the
// constant 0), negated when Not is set. Not is only ever set on an input or
// a constant: a negated gate is the gate of the complemented op.
type Circuit struct {
	Gates []Gate
	Out   uint8
	Not   bool
}

// Eval returns the function the circuit computes.
func (c Circuit) Eval() TT {
	vals := make([]TT, 4, 4+len(c.Gates))
	copy(vals, Vars[:])
	for _, g := range c.Gates {
		vals = append(vals, apply(g.Op, vals[g.A], vals[g.B]))
	}
	var f TT
	if c.Out != Const {
		f = vals[c.Out]
	}
	if c.Not {
		f = ^f
	}
	return f
}

// Validate reports whether every operand names an input or an earlier gate.
func (c Circuit) Validate() error {
	for k, g := range c.Gates {
		if g.Op >= gates.NumOps || int(g.A) >= 4+k || int(g.B) >= 4+k {
			return fmt.Errorf("smallest: gate %d %v reads a value not yet computed", k, g)
		}
	}
	if c.Out != Const && int(c.Out) >= 4+len(c.Gates) {
		return fmt.Errorf("smallest: output %d out of range", c.Out)
	}
	return nil
}
