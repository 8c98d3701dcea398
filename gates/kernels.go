package gates

import (
	"fmt"
	"math"
)

// Float is the element type of the soft kernels.
type Float interface{ ~float32 | ~float64 }

// Dims is the shape of one application of a gate layer to a batch.
//
// The input x is [Rows, In] when SharedInput (every group reads the same
// row) and [Rows, Groups, In] otherwise; the output is [Rows, Groups, Out].
// Per-gate arrays (coefficients, probabilities, sums) are [Groups, Out, ...].
type Dims struct {
	Rows, Groups, In, Out int
	SharedInput           bool
}

// XLen returns the number of elements of the input x.
func (d Dims) XLen() int {
	if d.SharedInput {
		return d.Rows * d.In
	}
	return d.Rows * d.Groups * d.In
}

// YLen returns the number of elements of the output y.
func (d Dims) YLen() int { return d.Rows * d.Groups * d.Out }

// Gates returns the number of gates, Groups*Out.
func (d Dims) Gates() int { return d.Groups * d.Out }

// xRow returns the input row that group g of row r reads.
func xRow[F Float](x []F, d Dims, r, g int) []F {
	if d.SharedInput {
		return x[r*d.In : (r+1)*d.In]
	}
	i := (r*d.Groups + g) * d.In
	return x[i : i+d.In]
}

func (d Dims) check(op string, w Wiring, lens ...int) {
	if w.Len() != d.Out {
		panic(fmt.Sprintf("gates: %s: wiring of %d gates for %d outputs", op, w.Len(), d.Out))
	}
	want := []int{d.XLen(), d.YLen(), 4 * d.Gates()}
	for i, n := range lens {
		if n != want[i] {
			panic(fmt.Sprintf("gates: %s: slice %d has %d elements, want %d for %+v", op, i, n, want[i], d))
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
				c[j] += pi * cij
			}
		}
		for j := range c {
			coeffs[4*k+j] = F(c[j])
		}
	}
	return bad
}

// LogitGrads turns the four per-gate sums of BackwardSoft into the gradient
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
			dp[i] = c[0]*s[0] + c[1]*s[1] + c[2]*s[2] + c[3]*s[3]
			mean += float64(p[i]) * dp[i]
		}
		for i := range dp {
			dlogits[k*NumOps+i] = F(float64(p[i]) * (dp[i] - mean))
		}
	}
}

// ForwardSoft evaluates a gate layer on a batch: for row r, group g and gate
// k, with a and b the inputs that w wires to k in the row that g reads,
//
//	y[r,g,k] = c0 + c1*a + c2*b + c3*a*b,   c = coeffs[g,k,:]
//
// x is laid out as d describes, y is [Rows, Groups, Out] and coeffs
// [Groups, Out, 4] (from SoftCoeffs). Rows are processed in parallel.
// ForwardSoft panics if the lengths disagree with d.
func ForwardSoft[F Float](y, x, coeffs []F, w Wiring, d Dims) {
	d.check("ForwardSoft", w, len(x), len(y), len(coeffs))
	rows := chunkRows(d.Gates())
	forChunks(ceilDiv(d.Rows, rows), func(c int) {
		for r := c * rows; r < min(d.Rows, (c+1)*rows); r++ {
			for g := range d.Groups {
				o := (r*d.Groups + g) * d.Out
				forwardRow(y[o:o+d.Out], xRow(x, d, r, g), coeffs[4*g*d.Out:4*(g+1)*d.Out], w.A, w.B)
			}
		}
	})
}

// forwardRow evaluates one group's gates on one input row.
func forwardRow[F Float](y, x, c []F, wa, wb []int32) {
	wb = wb[:len(wa)]
	y = y[:len(wa)]
	c = c[:4*len(wa)]
	for k, ia := range wa {
		a, b := x[ia], x[wb[k]]
		ck := c[4*k : 4*k+4 : 4*k+4]
		y[k] = ck[0] + a*(ck[1]+ck[3]*b) + ck[2]*b
	}
}

// BackwardSoft is ForwardSoft's backward pass. Given g = dL/dy
// ([Rows, Groups, Out]) it writes dx = dL/dx (x's layout; skipped when dx is
// nil) and, unless sums is nil, the four sums per gate over the rows,
//
//	sums[g,k,:] = (sum g, sum g*a, sum g*b, sum g*a*b),
//
// from which LogitGrads derives the logit gradient. The input gradient is
// gathered through rev (NewReverseIndex(w, d.In)): dL/da = g*(c1 + c3*b),
// dL/db = g*(c2 + c3*a), summed over the gates (and, for a shared input, the
// groups) that read each input. Rows are processed in parallel in chunks
// fixed by d alone and the partial sums combined in chunk order, so the
// result does not depend on the number of workers. BackwardSoft panics if
// the lengths disagree with d.
func BackwardSoft[F Float](dx []F, sums []float64, g, x, coeffs []F, w Wiring, rev ReverseIndex, d Dims) {
	d.check("BackwardSoft", w, len(x), len(g), len(coeffs))
	if dx != nil && len(dx) != len(x) {
		panic(fmt.Sprintf("gates: BackwardSoft: dx has %d elements, x %d", len(dx), len(x)))
	}
	if sums != nil && len(sums) != 4*d.Gates() {
		panic(fmt.Sprintf("gates: BackwardSoft: sums has %d elements, want %d", len(sums), 4*d.Gates()))
	}
	if len(rev.Start) != d.In+1 || len(rev.Slot) != 2*d.Out {
		panic(fmt.Sprintf("gates: BackwardSoft: reverse index for %d inputs and %d slots, want %d and %d", len(rev.Start)-1, len(rev.Slot), d.In, 2*d.Out))
	}
	rows := chunkRows(d.Gates())
	chunks := ceilDiv(d.Rows, rows)
	var partial []float64
	if sums != nil {
		partial = make([]float64, chunks*4*d.Gates())
	}
	forChunks(chunks, func(c int) {
		// gab holds dL/da and dL/db of every gate of the row: [Groups, Out, 2].
		gab := make([]F, 2*d.Gates())
		var s []float64
		if sums != nil {
			s = partial[c*4*d.Gates() : (c+1)*4*d.Gates()]
		}
		for r := c * rows; r < min(d.Rows, (c+1)*rows); r++ {
			for grp := range d.Groups {
				o := (r*d.Groups + grp) * d.Out
				cg := coeffs[4*grp*d.Out : 4*(grp+1)*d.Out]
				var sg []float64
				if s != nil {
					sg = s[4*grp*d.Out : 4*(grp+1)*d.Out]
				}
				backwardRow(gab[2*grp*d.Out:2*(grp+1)*d.Out], sg, g[o:o+d.Out], xRow(x, d, r, grp), cg, w.A, w.B)
			}
			if dx != nil {
				gatherRow(dx, gab, rev, d, r)
			}
		}
	})
	if sums != nil {
		clear(sums)
		for c := range chunks {
			for i, v := range partial[c*4*d.Gates() : (c+1)*4*d.Gates()] {
				sums[i] += v
			}
		}
	}
}

// backwardRow computes one group's per-gate input gradients on one row into
// gab ([Out, 2]) and adds the row's terms to the four sums s ([Out, 4]; nil
// to skip them).
func backwardRow[F Float](gab []F, s []float64, g, x, c []F, wa, wb []int32) {
	wb = wb[:len(wa)]
	g = g[:len(wa)]
	c = c[:4*len(wa)]
	gab = gab[:2*len(wa)]
	for k, ia := range wa {
		a, b, gk := x[ia], x[wb[k]], g[k]
		ck := c[4*k : 4*k+4 : 4*k+4]
		gab[2*k] = gk * (ck[1] + ck[3]*b)
		gab[2*k+1] = gk * (ck[2] + ck[3]*a)
	}
	if s == nil {
		return
	}
	s = s[:4*len(wa)]
	for k, ia := range wa {
		a, b, gk := float64(x[ia]), float64(x[wb[k]]), float64(g[k])
		sk := s[4*k : 4*k+4 : 4*k+4]
		sk[0] += gk
		sk[1] += gk * a
		sk[2] += gk * b
		sk[3] += gk * a * b
	}
}

// gatherRow sums the per-gate input gradients gab ([Groups, Out, 2]) of row
// r into dx through the reverse index.
func gatherRow[F Float](dx, gab []F, rev ReverseIndex, d Dims, r int) {
	if d.SharedInput {
		dr := dx[r*d.In : (r+1)*d.In]
		for j := range dr {
			var acc F
			slots := rev.Slot[rev.Start[j]:rev.Start[j+1]]
			for grp := range d.Groups {
				gg := gab[2*grp*d.Out : 2*(grp+1)*d.Out]
				for _, s := range slots {
					acc += gg[s]
				}
			}
			dr[j] = acc
		}
		return
	}
	for grp := range d.Groups {
		i := (r*d.Groups + grp) * d.In
		dr := dx[i : i+d.In]
		gg := gab[2*grp*d.Out : 2*(grp+1)*d.Out]
		for j := range dr {
			var acc F
			for _, s := range rev.Slot[rev.Start[j]:rev.Start[j+1]] {
				acc += gg[s]
			}
			dr[j] = acc
		}
	}
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }
