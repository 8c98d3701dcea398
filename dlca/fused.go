package dlca

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/dlca/dlca/gates"
)

// The fused step keeps activations feature-major: a layer's input is
// [features][rows] and its output [gates][rows], so each gate streams three
// contiguous vectors (its a, its b, its output) and, in the backward pass,
// keeps its four coefficient-gradient sums in registers. (gates.ForwardSoft
// and BackwardSoft, which gates.Layer uses, are row-major; on the
// checkerboard's shapes the feature-major loops are about 2.4 times
// faster, see docs/perf/dlca.md.) Both evaluate the same relaxed form
// c0 + c1*a + c2*b + c3*a*b, with coefficients from gates.SoftCoeffs.

// blockRows is the number of rows one worker handles at a time. Partial sums
// are kept per block and added in block order, so the result does not depend
// on the number of workers.
const blockRows = 128

// fmLayer is a gate layer's shape in feature-major form: groups of out gates
// reading in features each (all the same in features when shared).
type fmLayer struct {
	groups, in, out int
	shared          bool
	w               gates.Wiring
}

func (l fmLayer) inFeatures() int {
	if l.shared {
		return l.in
	}
	return l.groups * l.in
}

func (l fmLayer) gates() int { return l.groups * l.out }

// operands returns the input features read by gate j of group g as a and b.
func (l fmLayer) operands(g, j int) (int, int) {
	a, b := int(l.w.A[j]), int(l.w.B[j])
	if !l.shared {
		a, b = a+g*l.in, b+g*l.in
	}
	return a, b
}

// forBlocks calls f(blk, lo, hi) for every block of rows, spread over
// GOMAXPROCS goroutines.
func forBlocks(rows int, f func(blk, lo, hi int)) {
	n := (rows + blockRows - 1) / blockRows
	body := func(blk int) { f(blk, blk*blockRows, min(rows, (blk+1)*blockRows)) }
	workers := min(n, runtime.GOMAXPROCS(0))
	if workers <= 1 {
		for blk := range n {
			body(blk)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for blk := int(next.Add(1) - 1); blk < n; blk = int(next.Add(1) - 1) {
				body(blk)
			}
		})
	}
	wg.Wait()
}

// forwardFM computes y[k][r] = c0 + c1*a + c2*b + c3*a*b for every gate k
// and row r, x being [inFeatures][rows] and y [gates][rows].
func forwardFM[F gates.Float](y, x, coef []F, l fmLayer, rows int) {
	forBlocks(rows, func(_, lo, hi int) {
		for g := range l.groups {
			for j := range l.out {
				k := g*l.out + j
				fa, fb := l.operands(g, j)
				xa := x[fa*rows+lo : fa*rows+hi]
				xb := x[fb*rows+lo : fb*rows+hi]
				yk := y[k*rows+lo : k*rows+hi]
				xb = xb[:len(xa)]
				yk = yk[:len(xa)]
				c0, c1, c2, c3 := coef[4*k], coef[4*k+1], coef[4*k+2], coef[4*k+3]
				for r, a := range xa {
					b := xb[r]
					yk[r] = c0 + a*(c1+c3*b) + c2*b
				}
			}
		}
	})
}

// backwardFM is forwardFM's backward pass: given gy = dL/dy it writes
// dx = dL/dx ([inFeatures][rows], overwritten) and, unless sums is nil, the
// four sums per gate (sum g, g*a, g*b, g*a*b over the rows), which are the
// gradient of the loss with respect to the gate's coefficients.
func backwardFM[F gates.Float](dx []F, sums []float64, gy, x, coef []F, l fmLayer, rows int) {
	nblk := (rows + blockRows - 1) / blockRows
	var partial []float64
	if sums != nil {
		partial = make([]float64, nblk*4*l.gates())
	}
	forBlocks(rows, func(blk, lo, hi int) {
		for f := range l.inFeatures() {
			clear(dx[f*rows+lo : f*rows+hi])
		}
		for g := range l.groups {
			for j := range l.out {
				k := g*l.out + j
				fa, fb := l.operands(g, j)
				xa := x[fa*rows+lo : fa*rows+hi]
				xb := x[fb*rows+lo : fb*rows+hi]
				da := dx[fa*rows+lo : fa*rows+hi]
				db := dx[fb*rows+lo : fb*rows+hi]
				gk := gy[k*rows+lo : k*rows+hi]
				xb, da, db, gk = xb[:len(xa)], da[:len(xa)], db[:len(xa)], gk[:len(xa)]
				c1, c2, c3 := coef[4*k+1], coef[4*k+2], coef[4*k+3]
				// NOTE: two sets of accumulators, for even and odd rows, halve
				// the chain of dependent additions that bounds this loop.
				var s0, s1, s2, s3, t0, t1, t2, t3 F
				r := 0
				for ; r+1 < len(xa); r += 2 {
					a, b, gr := xa[r], xb[r], gk[r]
					a2, b2, gr2 := xa[r+1], xb[r+1], gk[r+1]
					da[r] += gr * (c1 + c3*b)
					db[r] += gr * (c2 + c3*a)
					da[r+1] += gr2 * (c1 + c3*b2)
					db[r+1] += gr2 * (c2 + c3*a2)
					ga, ga2 := gr*a, gr2*a2
					s0 += gr
					s1 += ga
					s2 += gr * b
					s3 += ga * b
					t0 += gr2
					t1 += ga2
					t2 += gr2 * b2
					t3 += ga2 * b2
				}
				if r < len(xa) {
					a, b, gr := xa[r], xb[r], gk[r]
					da[r] += gr * (c1 + c3*b)
					db[r] += gr * (c2 + c3*a)
					s0 += gr
					s1 += gr * a
					s2 += gr * b
					s3 += gr * a * b
				}
				if partial != nil {
					p := partial[(blk*l.gates()+k)*4:]
					p[0], p[1], p[2], p[3] = float64(s0+t0), float64(s1+t1), float64(s2+t2), float64(s3+t3)
				}
			}
		}
	})
	if sums != nil {
		clear(sums)
		for blk := range nblk {
			for i, v := range partial[blk*4*l.gates() : (blk+1)*4*l.gates()] {
				sums[i] += v
			}
		}
	}
}
