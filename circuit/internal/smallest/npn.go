package smallest

import (
	"sync"

	"github.com/dlca/dlca/gates"
)

// A Transform maps a function g to f(x) = g(y) XOR NotOut, where input i of
// g reads y_i = x_Perm[i] XOR bit i of Neg.
type Transform struct {
	Perm   [4]uint8
	Neg    uint8
	NotOut bool
}

// Apply returns the function f the transform makes of g.
func (t Transform) Apply(g TT) TT {
	var f TT
	for r := range 16 {
		s := 0
		for i, p := range t.Perm {
			s |= (r>>p&1 ^ int(t.Neg>>i&1)) << i
		}
		if (g>>s&1 == 1) != t.NotOut {
			f |= 1 << r
		}
	}
	return f
}

// Circuit rewrites a circuit computing g into one computing Apply(g), with
// as many gates: each gate reading input i reads input Perm[i] instead,
// through the op that negates it if bit i of Neg is set, and a negated
// output gate becomes the gate of the complemented op.
func (t Transform) Circuit(c Circuit) Circuit {
	out := Circuit{Gates: make([]Gate, len(c.Gates)), Out: c.Out, Not: c.Not}
	for k, g := range c.Gates {
		if g.A < 4 {
			g.Op, g.A = negateA(g.Op, t.Neg>>g.A&1 == 1), t.Perm[g.A]
		}
		if g.B < 4 {
			g.Op, g.B = negateB(g.Op, t.Neg>>g.B&1 == 1), t.Perm[g.B]
		}
		out.Gates[k] = g
	}
	if c.Out < 4 {
		out.Out = t.Perm[c.Out]
		out.Not = c.Not != (t.Neg>>c.Out&1 == 1)
	}
	if t.NotOut {
		if c.Out == Const || c.Out < 4 {
			out.Not = !out.Not
		} else {
			g := &out.Gates[c.Out-4]
			g.Op = gates.True - g.Op // gates.Op numbers the complement of o as 15-o
		}
	}
	return out
}

// negateA returns o reading its first operand negated, if not.
func negateA(o gates.Op, not bool) gates.Op {
	if !not {
		return o
	}
	return opOf(func(a, b uint8) uint8 { return o.Truth(1-a, b) })
}

// negateB returns o reading its second operand negated, if not.
func negateB(o gates.Op, not bool) gates.Op {
	if !not {
		return o
	}
	return opOf(func(a, b uint8) uint8 { return o.Truth(a, 1-b) })
}

// opOf returns the op with truth table f.
func opOf(f func(a, b uint8) uint8) gates.Op {
	for o := range gates.Op(gates.NumOps) {
		if o.Truth(0, 0) == f(0, 0) && o.Truth(0, 1) == f(0, 1) && o.Truth(1, 0) == f(1, 0) && o.Truth(1, 1) == f(1, 1) {
			return o
		}
	}
	panic("smallest: no op has this truth table")
}

// Transforms are all 768 transforms: 24 permutations, 16 input negations, 2
// output negations.
var Transforms = func() []Transform {
	var ts []Transform
	var perm func(p []uint8, used int)
	perm = func(p []uint8, used int) {
		if len(p) == 4 {
			for neg := range uint8(16) {
				for _, not := range []bool{false, true} {
					ts = append(ts, Transform{Perm: [4]uint8(p), Neg: neg, NotOut: not})
				}
			}
			return
		}
		for i := range uint8(4) {
			if used>>i&1 == 0 {
				perm(append(p, i), used|1<<i)
			}
		}
	}
	perm(nil, 0)
	return ts
}()

// Classes returns the NPN classes' representatives, each the smallest truth
// table of its class, in increasing order.
func Classes() []TT {
	var seen [1 << 16]bool
	var reps []TT
	for f := range 1 << 16 {
		if seen[f] {
			continue
		}
		reps = append(reps, TT(f))
		for _, t := range Transforms {
			seen[t.Apply(TT(f))] = true
		}
	}
	return reps
}

// class records that a function is Transform.Apply of representative Rep.
type class struct {
	rep int
	t   Transform
}

// classOf maps every function to its class, computed on first use.
var classOf = sync.OnceValue(func() *[1 << 16]class {
	var m [1 << 16]class
	var seen [1 << 16]bool
	for i, r := range Classes() {
		for _, t := range Transforms {
			if f := t.Apply(r); !seen[f] {
				seen[f] = true
				m[f] = class{rep: i, t: t}
			}
		}
	}
	return &m
})

// For returns a smallest known circuit computing f.
func For(f TT) Circuit {
	c := classOf()[f]
	return c.t.Circuit(table[c.rep])
}

// Size returns the number of gates of For(f), without building it.
func Size(f TT) int {
	return len(table[classOf()[f].rep].Gates)
}

// Inverse returns the transform u with u.Apply(t.Apply(g)) = g.
func (t Transform) Inverse() Transform {
	u := Transform{NotOut: t.NotOut}
	for i, p := range t.Perm {
		u.Perm[p] = uint8(i)
		u.Neg |= (t.Neg >> i & 1) << p
	}
	return u
}

// ClassOf returns the index in Classes of f's class and the transform that
// makes f of that class's representative.
func ClassOf(f TT) (int, Transform) {
	c := classOf()[f]
	return c.rep, c.t
}
