package gates

import (
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"strings"
	"testing"
)

// paperOps restates the table of PAPER.md section 1 independently of
// table.go: each op's truth table for ab = 00, 01, 10, 11 and its relaxed
// form as printed in the paper.
var paperOps = []struct {
	op      Op
	name    string
	truth   string
	relaxed func(a, b float64) float64
}{
	{False, "FALSE", "0000", func(a, b float64) float64 { return 0 }},
	{And, "AND", "0001", func(a, b float64) float64 { return a * b }},
	{AAndNotB, "A_AND_NOT_B", "0010", func(a, b float64) float64 { return a - a*b }},
	{A, "A", "0011", func(a, b float64) float64 { return a }},
	{NotAAndB, "NOT_A_AND_B", "0100", func(a, b float64) float64 { return b - a*b }},
	{B, "B", "0101", func(a, b float64) float64 { return b }},
	{Xor, "XOR", "0110", func(a, b float64) float64 { return a + b - 2*a*b }},
	{Or, "OR", "0111", func(a, b float64) float64 { return a + b - a*b }},
	{Nor, "NOR", "1000", func(a, b float64) float64 { return 1 - (a + b - a*b) }},
	{Xnor, "XNOR", "1001", func(a, b float64) float64 { return 1 - (a + b - 2*a*b) }},
	{NotB, "NOT_B", "1010", func(a, b float64) float64 { return 1 - b }},
	{AOrNotB, "A_OR_NOT_B", "1011", func(a, b float64) float64 { return 1 - b + a*b }},
	{NotA, "NOT_A", "1100", func(a, b float64) float64 { return 1 - a }},
	{NotAOrB, "NOT_A_OR_B", "1101", func(a, b float64) float64 { return 1 - a + a*b }},
	{Nand, "NAND", "1110", func(a, b float64) float64 { return 1 - a*b }},
	{True, "TRUE", "1111", func(a, b float64) float64 { return 1 }},
}

// corners are the four inputs ab = 00, 01, 10, 11, in truth-table order.
var corners = [4][2]uint8{{0, 0}, {0, 1}, {1, 0}, {1, 1}}

// interior are points inside the unit square for the relaxed forms.
var interior = [][2]float64{{0.3, 0.7}, {0.9, 0.1}, {0.5, 0.5}, {0.12, 0.83}}

// TestEveryFormAgreesWithTruth ties every derived form of every op back to
// its truth table, on all four corners, and the relaxed forms to the paper
// and to finite differences inside the square.
func TestEveryFormAgreesWithTruth(t *testing.T) {
	if len(paperOps) != NumOps {
		t.Fatalf("%d ops in the paper table", len(paperOps))
	}
	table32 := CoeffTable32()
	for _, tc := range paperOps {
		o := tc.op
		t.Run(tc.name, func(t *testing.T) {
			if o.String() != tc.name {
				t.Errorf("String = %q", o.String())
			}
			c := o.Coeffs()
			for j := range 4 {
				if float64(table32[4*int(o)+j]) != c[j] || CoeffTable()[o][j] != c[j] {
					t.Errorf("coefficient tables disagree with Coeffs %v at %d", c, j)
				}
			}
			for i, ab := range corners {
				a, b := ab[0], ab[1]
				want := tc.truth[i] - '0'
				if got := o.Truth(a, b); got != want {
					t.Errorf("Truth(%d,%d) = %d, paper %d", a, b, got, want)
				}
				fa, fb := float64(a), float64(b)
				if got := o.Relaxed(fa, fb); got != float64(want) {
					t.Errorf("Relaxed(%d,%d) = %v, want %d", a, b, got, want)
				}
				if got := c[0] + c[1]*fa + c[2]*fb + c[3]*fa*fb; got != float64(want) {
					t.Errorf("coefficients %v at (%d,%d) give %v, want %d", c, a, b, got, want)
				}
				if got := o.Eval(a == 1, b == 1); got != (want == 1) {
					t.Errorf("Eval(%d,%d) = %v, want %d", a, b, got, want)
				}
				// Word: put corner (a, b) in every bit; also mix corners across bits.
				wa, wb := -uint64(a), -uint64(b)
				if got := o.Word(wa, wb); got != -uint64(want) {
					t.Errorf("Word(%#x,%#x) = %#x, want all %d", wa, wb, got, want)
				}
				if got := evalExpr(t, o.Expr(), wa, wb); got != -uint64(want) {
					t.Errorf("Expr %q at (%d,%d) = %#x, want all %d", o.Expr(), a, b, got, want)
				}
			}
			const mixA, mixB = 0b0011, 0b0101 // bit 3-i holds corner i
			if got := o.Word(mixA, mixB) & 0xf; got != uint64(o) {
				t.Errorf("Word on the four corners at once = %04b, want the truth table %04b", got, uint8(o))
			}
			for _, p := range interior {
				a, b := p[0], p[1]
				if got, want := o.Relaxed(a, b), tc.relaxed(a, b); math.Abs(got-want) > 1e-15 {
					t.Errorf("Relaxed(%v,%v) = %v, paper %v", a, b, got, want)
				}
				da, db := o.Grad(a, b)
				const h = 1e-6
				na := (tc.relaxed(a+h, b) - tc.relaxed(a-h, b)) / (2 * h)
				nb := (tc.relaxed(a, b+h) - tc.relaxed(a, b-h)) / (2 * h)
				if math.Abs(da-na) > 1e-8 || math.Abs(db-nb) > 1e-8 {
					t.Errorf("Grad(%v,%v) = (%v,%v), finite differences (%v,%v)", a, b, da, db, na, nb)
				}
			}
		})
	}
}

// evalExpr evaluates a C-syntax bitwise expression on words a and b by
// parsing it as Go (with C's ~ spelt ^).
func evalExpr(t *testing.T, expr string, a, b uint64) uint64 {
	t.Helper()
	e, err := parser.ParseExpr(strings.ReplaceAll(expr, "~", "^"))
	if err != nil {
		t.Fatalf("Expr %q does not parse: %v", expr, err)
	}
	var eval func(ast.Expr) uint64
	eval = func(e ast.Expr) uint64 {
		switch e := e.(type) {
		case *ast.ParenExpr:
			return eval(e.X)
		case *ast.Ident:
			if e.Name == "a" {
				return a
			} else if e.Name == "b" {
				return b
			}
		case *ast.BasicLit:
			if e.Value == "0" {
				return 0
			}
		case *ast.UnaryExpr:
			if e.Op == token.XOR {
				return ^eval(e.X)
			}
		case *ast.BinaryExpr:
			x, y := eval(e.X), eval(e.Y)
			switch e.Op {
			case token.AND:
				return x & y
			case token.OR:
				return x | y
			case token.XOR:
				return x ^ y
			}
		}
		t.Fatalf("Expr %q: unexpected %T", expr, e)
		return 0
	}
	return eval(e)
}

// TestHardCoeffs: each op's hard coefficients, evaluated as the relaxed
// form c0 + c1*a + c2*b + c3*a*b on bits, give its truth table.
func TestHardCoeffs(t *testing.T) {
	ops := make([]Op, NumOps)
	for o := range ops {
		ops[o] = Op(NumOps - 1 - o) // out of order, to hold the layout
	}
	c := HardCoeffs[float64](ops)
	if len(c) != 4*NumOps {
		t.Fatalf("%d coefficients for %d ops", len(c), NumOps)
	}
	for k, o := range ops {
		for _, ab := range [][2]float64{{0, 0}, {0, 1}, {1, 0}, {1, 1}} {
			a, b := ab[0], ab[1]
			got := c[4*k] + c[4*k+1]*a + c[4*k+2]*b + c[4*k+3]*a*b
			if want := float64(o.Truth(uint8(a), uint8(b))); got != want {
				t.Errorf("op %v at (%v, %v): %v, want %v", o, a, b, got, want)
			}
		}
	}
}
