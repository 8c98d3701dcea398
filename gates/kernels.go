package gates

import (
	"fmt"
	"math"
	"strings"
)

// Float is the element type of the soft kernels.
type Float interface{ ~float32 | ~float64 }

// Dims is the shape of one application of a gate layer to a batch.
//
// The kernels' arrays are feature-major: the input x is [In][Rows] when
// SharedInput (every group reads the same features) and [Groups*In][Rows]
// otherwise, the output [Groups*Out][Rows]. Per-gate arrays (coefficients,
// probabilities, sums) are [Groups, Out, ...].
type Dims struct {
	Rows, Groups, In, Out int
	SharedInput           bool
}

// XLen returns the number of elements of the input x.
func (d Dims) XLen() int { return d.Rows * d.inputs() }

// YLen returns the number of elements of the output y.
func (d Dims) YLen() int { return d.Rows * d.Groups * d.Out }

// Gates returns the number of gates, Groups*Out.
func (d Dims) Gates() int { return d.Groups * d.Out }

// inputs returns the number of input features of x: In when shared,
// Groups*In otherwise.
func (d Dims) inputs() int {
	if d.SharedInput {
		return d.In
	}
	return d.Groups * d.In
}

// operands returns the inputs that gate j of group g reads as a and b,
// numbered as in inputs: input i of group g is g*In + i unless the input
// is shared.
func (d Dims) operands(w Wiring, g, j int) (a, b int) {
	a, b = int(w.A[j]), int(w.B[j])
	if !d.SharedInput {
		a, b = a+g*d.In, b+g*d.In
	}
	return a, b
}

// check panics, naming op, unless w is a wiring of d.Out gates over d.In
// inputs and x, y (or dL/dy) and coeffs have the lengths d gives them.
func (d Dims) check(op string, w Wiring, x, y, coeffs int) {
	if w.Len() != d.Out {
		panic(fmt.Sprintf("gates: %s: wiring of %d gates for %d outputs", op, w.Len(), d.Out))
	}
	if err := w.Check(d.In); err != nil {
		panic(fmt.Sprintf("gates: %s: %s", op, strings.TrimPrefix(err.Error(), "gates: ")))
	}
	for _, s := range []struct {
		name      string
		got, want int
	}{{"x", x, d.XLen()}, {"y", y, d.YLen()}, {"coeffs", coeffs, 4 * d.Gates()}} {
		if s.got != s.want {
			panic(fmt.Sprintf("gates: %s: %s has %d elements, want %d for %+v", op, s.name, s.got, s.want, d))
		}
	}
}

// SoftCoeffs computes, for each of the n = len(logits)/16 gates, the
// probabilities probs = softmax(logits) (n*16 values) and the four
// coefficients coeffs[4k:4k+4] (n*4 values) with which the gate's expected
// output is c0 + c1*a + c2*b + c3*a*b. It returns the index of the first
// gate with a NaN or infinite logit, or -1. SoftCoeffs panics if the slice
// lengths disagree.
func SoftCoeffs[F Float](probs, coeffs, logits []F) (bad int) {
	n := len(logits) / NumOps
	if len(logits) != n*NumOps || len(probs) != len(logits) || len(coeffs) != 4*n {
		panic(fmt.Sprintf("gates: SoftCoeffs: %d logits, %d probs, %d coeffs", len(logits), len(probs), len(coeffs)))
	}
	bad = -1
	for k := range n {
		w := logits[k*NumOps : (k+1)*NumOps]
		m := math.Inf(-1)
		for _, v := range w {
			m = max(m, float64(v))
		}
		if math.IsInf(m, 0) || math.IsNaN(m) {
			if bad < 0 {
				bad = k
			}
		}
		// NOTE: softmax and the coefficient sums run in float64 whatever F
		// is; it costs nothing next to the per-row work.
		var e [NumOps]float64
		sum := 0.0
		for i, v := range w {
			e[i] = math.Exp(float64(v) - m)
			sum += e[i]
		}
		var c [4]float64
		p := probs[k*NumOps : (k+1)*NumOps]
		for i := range e {
			pi := e[i] / sum
			if math.IsNaN(pi) && bad < 0 {
				bad = k
			}
			p[i] = F(pi)
			for j, cij := range coeffTable[i] {
				c[j] += float64(pi * cij)
			}
		}
		for j := range c {
			coeffs[4*k+j] = F(c[j])
		}
	}
	return bad
}

// LogitGrads turns the four per-gate sums of BackwardSoftFM into the gradient
// of the logits: with S the sums and p the probabilities,
//
//	dL/dp_i = sum_j C[i][j] S_j            (C = CoeffTable)
//	dL/dw_i = p_i (dL/dp_i - sum_k p_k dL/dp_k)   (softmax Jacobian)
//
// dlogits and probs hold n*16 values, sums n*4. It panics on other lengths.
func LogitGrads[F Float](dlogits, probs []F, sums []float64) {
	n := len(sums) / 4
	if len(sums) != 4*n || len(probs) != n*NumOps || len(dlogits) != n*NumOps {
		panic(fmt.Sprintf("gates: LogitGrads: %d dlogits, %d probs, %d sums", len(dlogits), len(probs), len(sums)))
	}
	for k := range n {
		s := sums[4*k : 4*k+4]
		p := probs[k*NumOps : (k+1)*NumOps]
		var dp [NumOps]float64
		mean := 0.0
		for i, c := range coeffTable {
			// NOTE: products are converted before they are added, so that
			// no build fuses them into multiply-adds (see forwardGateFM).
			dp[i] = float64(c[0]*s[0]) + float64(c[1]*s[1]) + float64(c[2]*s[2]) + float64(c[3]*s[3])
			mean += float64(float64(p[i]) * dp[i])
		}
		for i := range dp {
			dlogits[k*NumOps+i] = F(float64(p[i]) * (dp[i] - mean))
		}
	}
}
