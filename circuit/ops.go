package circuit

import "github.com/dlca/dlca/gates"

// Everything this package knows about an op is derived here from
// gates.Op.Truth: its algebraic shape (for the exports), its transpose,
// what it becomes when an input is fixed or inverted. ops_test.go checks
// each derived form against Truth on all four corners of {0,1}^2.

// opFromTruth returns the op whose truth table is f.
func opFromTruth(f func(a, b uint8) uint8) gates.Op {
	var o gates.Op
	for k := 0; k < 4; k++ {
		a, b := uint8(k>>1), uint8(k&1)
		o |= gates.Op(f(a, b)&1) << (3 - k)
	}
	return o
}

// transpose returns the op with its operands swapped: t(a, b) = o(b, a).
func transpose(o gates.Op) gates.Op {
	return opFromTruth(func(a, b uint8) uint8 { return o.Truth(b, a) })
}

// invertA returns the op that reads a through an inverter: o(1-a, b).
func invertA(o gates.Op) gates.Op {
	return opFromTruth(func(a, b uint8) uint8 { return o.Truth(1-a, b) })
}

// invertB returns the op that reads b through an inverter: o(a, 1-b).
func invertB(o gates.Op) gates.Op {
	return opFromTruth(func(a, b uint8) uint8 { return o.Truth(a, 1-b) })
}

// dependsOnA reports whether the op's output ever changes with a.
func dependsOnA(o gates.Op) bool {
	return o.Truth(0, 0) != o.Truth(1, 0) || o.Truth(0, 1) != o.Truth(1, 1)
}

// dependsOnB reports whether the op's output ever changes with b.
func dependsOnB(o gates.Op) bool {
	return o.Truth(0, 0) != o.Truth(0, 1) || o.Truth(1, 0) != o.Truth(1, 1)
}

// constValue reports the op's output if it depends on neither input.
func constValue(o gates.Op) (uint8, bool) {
	if dependsOnA(o) || dependsOnB(o) {
		return 0, false
	}
	return o.Truth(0, 0), true
}

// formKind is the algebraic shape of an op.
type formKind uint8

const (
	formConst formKind = iota // Value
	formA                     // a, possibly inverted
	formB                     // b, possibly inverted
	formAnd                   // la AND lb, literals possibly inverted
	formOr                    // la OR lb
	formXor                   // a XOR b, possibly inverted
)

// form is an op written with NOT, AND, OR and XOR: for formAnd and formOr
// the literals are a (or NOT a when NotA) and b (or NOT b when NotB); for
// formA, formB and formXor NotOut inverts the result. Every op has exactly
// one form; the DigitalJS export draws it.
type form struct {
	Kind       formKind
	Value      uint8 // formConst only
	NotA, NotB bool  // formAnd, formOr
	NotOut     bool  // formA, formB, formXor
}

// formOf derives the op's form from its truth table.
func formOf(o gates.Op) form {
	t := func(a, b uint8) uint8 { return o.Truth(a, b) }
	if v, ok := constValue(o); ok {
		return form{Kind: formConst, Value: v}
	}
	if !dependsOnB(o) {
		return form{Kind: formA, NotOut: t(0, 0) == 1}
	}
	if !dependsOnA(o) {
		return form{Kind: formB, NotOut: t(0, 0) == 1}
	}
	if t(0, 0) == t(1, 1) && t(0, 1) == t(1, 0) {
		return form{Kind: formXor, NotOut: t(0, 0) == 1}
	}
	// One corner differs from the other three. If it is the only 1, the op
	// is an AND of the literals that are 1 there; if it is the only 0, an OR
	// of the literals that are 0 there.
	ones := 0
	var p, q uint8
	for k := uint8(0); k < 4; k++ {
		ones += int(t(k>>1, k&1))
	}
	odd := uint8(0)
	if ones == 3 {
		odd = 1
	}
	for k := uint8(0); k < 4; k++ {
		if t(k>>1, k&1) != odd {
			p, q = k>>1, k&1
		}
	}
	if ones == 1 {
		return form{Kind: formAnd, NotA: p == 0, NotB: q == 0}
	}
	return form{Kind: formOr, NotA: p == 1, NotB: q == 1}
}

// eval evaluates the form on bits; tests compare it with Truth.
func (f form) eval(a, b uint8) uint8 {
	lit := func(x uint8, not bool) uint8 {
		if not {
			return 1 - x
		}
		return x
	}
	switch f.Kind {
	case formConst:
		return f.Value
	case formA:
		return lit(a, f.NotOut)
	case formB:
		return lit(b, f.NotOut)
	case formXor:
		return lit(a^b, f.NotOut)
	case formAnd:
		return lit(a, f.NotA) & lit(b, f.NotB)
	default:
		return lit(a, f.NotA) | lit(b, f.NotB)
	}
}
