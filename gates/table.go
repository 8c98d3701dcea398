package gates

import "fmt"

// Op is one of the 16 two-input Boolean functions, numbered as in the paper:
// the number's four bits, most significant first, are the op's outputs for
// the inputs ab = 00, 01, 10, 11. So And = 1 = 0b0001 and Xor = 6 = 0b0110.
type Op uint8

// The 16 ops, in the paper's order.
const (
	False    Op = iota // 0000
	And                // 0001: a AND b
	AAndNotB           // 0010: a AND NOT b
	A                  // 0011: pass-through a
	NotAAndB           // 0100: NOT a AND b
	B                  // 0101: pass-through b
	Xor                // 0110
	Or                 // 0111
	Nor                // 1000
	Xnor               // 1001
	NotB               // 1010
	AOrNotB            // 1011: a OR NOT b
	NotA               // 1100
	NotAOrB            // 1101: NOT a OR b
	Nand               // 1110
	True               // 1111
)

// NumOps is the number of distinct two-input gates.
const NumOps = 16

// opNames are the ops' names, in Op order.
var opNames = [NumOps]string{
	"FALSE", "AND", "A_AND_NOT_B", "A", "NOT_A_AND_B", "B", "XOR", "OR",
	"NOR", "XNOR", "NOT_B", "A_OR_NOT_B", "NOT_A", "NOT_A_OR_B", "NAND", "TRUE",
}

// String returns the op's name, such as "AND" or "NOT_A_OR_B".
func (o Op) String() string {
	if o < NumOps {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// Truth returns the op's output for the input bits a and b (each 0 or 1).
// This is the single source of truth from which every other form of the
// gates is derived.
func (o Op) Truth(a, b uint8) uint8 {
	k := 2*(a&1) + (b & 1) // position in the table ab = 00, 01, 10, 11
	return uint8(o>>(3-k)) & 1
}

// Coeffs returns the op's relaxed form y = c[0] + c[1]*a + c[2]*b + c[3]*a*b,
// the unique multilinear polynomial that agrees with Truth on {0,1}^2.
func (o Op) Coeffs() [4]float64 {
	f00 := float64(o.Truth(0, 0))
	f01 := float64(o.Truth(0, 1))
	f10 := float64(o.Truth(1, 0))
	f11 := float64(o.Truth(1, 1))
	return [4]float64{f00, f10 - f00, f01 - f00, f11 - f10 - f01 + f00}
}

// coeffTable holds Coeffs of every op, computed once.
var coeffTable = func() (t [NumOps][4]float64) {
	for o := Op(0); o < NumOps; o++ {
		t[o] = o.Coeffs()
	}
	return t
}()

// CoeffTable returns the relaxed coefficients of all 16 ops, indexed by Op.
func CoeffTable() [NumOps][4]float64 { return coeffTable }

// Relaxed evaluates the op's relaxed form at real inputs a, b in [0,1].
func (o Op) Relaxed(a, b float64) float64 {
	c := coeffTable[o]
	return c[0] + float64(c[1]*a) + float64(c[2]*b) + float64(c[3]*a*b) // rounded products: no fused multiply-add
}

// Grad returns the relaxed form's partial derivatives d/da and d/db.
func (o Op) Grad(a, b float64) (da, db float64) {
	c := coeffTable[o]
	return c[1] + c[3]*b, c[2] + c[3]*a
}

// HardCoeffs returns the coefficients of ops, 4 per op in order: the
// relaxed form of gates that have each decided on one op (one-hot
// probabilities), as a straight-through rollout steps forward with them.
func HardCoeffs[F Float](ops []Op) []F {
	c := make([]F, 4*len(ops))
	for k, o := range ops {
		for j, v := range coeffTable[o] {
			c[4*k+j] = F(v)
		}
	}
	return c
}

// CoeffTable32 returns the relaxed coefficients of all 16 ops as float32,
// op-major ([16][4] flattened: c0, c1, c2, c3 of False, then of And, ...),
// the layout shaders and device buffers take.
func CoeffTable32() []float32 {
	t := make([]float32, 0, 4*NumOps)
	for _, c := range coeffTable {
		for _, v := range c {
			t = append(t, float32(v))
		}
	}
	return t
}
