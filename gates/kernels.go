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
	gs := packGates(coeffs, w, d.Groups)
	rows := chunkRows(d.Gates())
	forChunks(ceilDiv(d.Rows, rows), func(c int) {
		for r := c * rows; r < min(d.Rows, (c+1)*rows); r++ {
			for grp := range d.Groups {
				o := (r*d.Groups + grp) * d.Out
				forwardRow(y[o:o+d.Out], xRow(x, d, r, grp), gs.group(grp, d.Out))
			}
		}
	})
}

// gateCols is a layer's wiring and coefficients as one column per field,
// [Groups, Out] each (the wiring repeated per group): the kernels index
// every column by gate with no arithmetic and the compiler drops the bounds
// checks.
type gateCols[F Float] struct {
	a, b           []int32
	c0, c1, c2, c3 []F
}

func packGates[F Float](coeffs []F, w Wiring, groups int) gateCols[F] {
	n := groups * w.Len()
	g := gateCols[F]{a: make([]int32, 0, n), b: make([]int32, 0, n),
		c0: make([]F, n), c1: make([]F, n), c2: make([]F, n), c3: make([]F, n)}
	for range groups {
		g.a = append(g.a, w.A...)
		g.b = append(g.b, w.B...)
	}
	for i := range n {
		g.c0[i], g.c1[i], g.c2[i], g.c3[i] = coeffs[4*i], coeffs[4*i+1], coeffs[4*i+2], coeffs[4*i+3]
	}
	return g
}

// group returns the columns of group grp of a layer of out gates per group.
func (g gateCols[F]) group(grp, out int) gateCols[F] {
	lo, hi := grp*out, (grp+1)*out
	return gateCols[F]{a: g.a[lo:hi], b: g.b[lo:hi], c0: g.c0[lo:hi], c1: g.c1[lo:hi], c2: g.c2[lo:hi], c3: g.c3[lo:hi]}
}

// xRow returns the input row that group g of row r reads.
func xRow[F Float](x []F, d Dims, r, g int) []F {
	i := r * d.In
	if !d.SharedInput {
		i = (r*d.Groups + g) * d.In
	}
	return x[i : i+d.In]
}

// forwardRow evaluates one group's gates on one input row.
func forwardRow[F Float](y, x []F, g gateCols[F]) {
	n := len(g.a)
	y, wb, c0, c1, c2, c3 := y[:n], g.b[:n], g.c0[:n], g.c1[:n], g.c2[:n], g.c3[:n]
	for k, ia := range g.a {
		a, b := x[ia], x[wb[k]]
		y[k] = c0[k] + a*(c1[k]+c3[k]*b) + c2[k]*b
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
	gs := packGates(coeffs, w, d.Groups)
	gates := d.Gates()
	rows := chunkRows(gates)
	chunks := ceilDiv(d.Rows, rows)
	partial := make([]float64, chunks*4*gates)
	forChunks(chunks, func(c int) {
		gab := make([]F, 2*gates) // dL/da and dL/db of every gate of a row: [Groups, Out, 2]
		acc := make([][4]F, gates)
		s := partial[c*4*gates : (c+1)*4*gates]
		lo, hi := c*rows, min(d.Rows, (c+1)*rows)
		for r := lo; r < hi; r++ {
			for grp := range d.Groups {
				o := (r*d.Groups + grp) * d.Out
				backwardRow(gab[2*grp*d.Out:2*(grp+1)*d.Out], acc[grp*d.Out:(grp+1)*d.Out],
					g[o:o+d.Out], xRow(x, d, r, grp), gs.group(grp, d.Out))
			}
			if dx != nil {
				for grp := range d.Groups {
					gatherRow(xRow(dx, d, r, grp), gab[2*grp*d.Out:2*(grp+1)*d.Out], rev, d.SharedInput && grp > 0)
				}
			}
			// NOTE: the sums run in F over at most flushRows rows, then
			// move to float64, so float32 layers lose no precision to long
			// sums.
			if (r-lo+1)%flushRows == 0 || r == hi-1 {
				for k, a := range acc {
					s[4*k] += float64(a[0])
					s[4*k+1] += float64(a[1])
					s[4*k+2] += float64(a[2])
					s[4*k+3] += float64(a[3])
				}
				clear(acc)
			}
		}
	})
	if sums != nil {
		clear(sums)
		for c := range chunks {
			for i, v := range partial[c*4*gates : (c+1)*4*gates] {
				sums[i] += v
			}
		}
	}
}

// flushRows is how many rows the backward kernel sums in F before moving
// the sums to float64.
const flushRows = 16

// backwardRow computes one group's per-gate input gradients on one row into
// gab ([Out, 2]) and adds the row's terms to the four sums acc ([Out]).
func backwardRow[F Float](gab []F, acc [][4]F, g, x []F, gc gateCols[F]) {
	n := len(gc.a)
	gab, acc, g = gab[:2*n], acc[:n], g[:n]
	wb, c1, c2, c3 := gc.b[:n], gc.c1[:n], gc.c2[:n], gc.c3[:n]
	for k, ia := range gc.a {
		a, b, gk := x[ia], x[wb[k]], g[k]
		gab[2*k] = gk * (c1[k] + c3[k]*b)
		gab[2*k+1] = gk * (c2[k] + c3[k]*a)
		ga := gk * a
		s := &acc[k]
		s[0] += gk
		s[1] += ga
		s[2] += gk * b
		s[3] += ga * b
	}
}

// gatherRow sets (or, with add, increments) each input's gradient dx[j] to
// the sum of the per-gate gradients gab ([Out, 2]) of the gates reading it,
// in the reverse index's order.
func gatherRow[F Float](dx, gab []F, rev ReverseIndex, add bool) {
	start, slot := rev.Start[1:len(dx)+1], rev.Slot
	e := int(rev.Start[0])
	for j, end := range start {
		var acc F
		for ; e < int(end); e++ {
			acc += gab[slot[e]]
		}
		if add {
			acc += dx[j]
		}
		dx[j] = acc
	}
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }
