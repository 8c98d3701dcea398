package gates

import "fmt"

// The gate layer's kernels, on its one layout, feature-major:
//
//	x   [inputs][Rows]      inputs = In when shared, Groups*In otherwise
//	                        (input j of group g is feature g*In + j)
//	y   [Groups*Out][Rows]  gate j of group g is feature g*Out + j
//
// Coefficients and sums are [Groups, Out, 4]. A gate streams three
// contiguous vectors (its a, its b, its output) and the backward pass keeps
// the gate's four sums in registers and adds its input gradients straight
// into dx, with no reverse index. Layer.Forward transposes autograd's
// row-major tensors (rows are the batch) around them.

// fmBlockRows is the number of rows over which the feature-major backward
// pass sums in F, whatever the layer's shape or the number of workers: the
// blocks' sums are then added in float64 in block order, so the block size
// fixes the result's rounding.
const fmBlockRows = 128

// callBlocks is the most blocks of one gate the backward pass hands its
// vector loop at once: one call then streams up to 1024 rows, and the
// calls' overhead, a tenth of the loop's time with one block per call, is
// spread over eight.
const callBlocks = 8

// fmMaxSpan is the most blocks one worker takes at a time. Each gate then
// streams up to fmMaxSpan*fmBlockRows contiguous rows of its vectors, which
// the hardware prefetches better than one block's 512 bytes.
const fmMaxSpan = 8

// fmSpan returns how many blocks make one worker's span: the blocks shared
// evenly by the workers, at most fmMaxSpan. Results do not depend on it
// (sums are kept per block, and each dx element is summed in gate order
// whatever span holds its row), so it may depend on the number of workers.
func fmSpan(blocks int) int {
	return max(1, min(fmMaxSpan, ceilDiv(blocks, workers(blocks))))
}

// forSpans calls f(lo, hi, b0, b1) for every span of rows [lo, hi), which
// is blocks [b0, b1), spread over the workers.
func forSpans(rows int, f func(lo, hi, b0, b1 int)) {
	blocks := ceilDiv(rows, fmBlockRows)
	span := fmSpan(blocks)
	forChunks(ceilDiv(blocks, span), func(_, sp int) {
		b0, b1 := sp*span, min(blocks, (sp+1)*span)
		f(b0*fmBlockRows, min(rows, b1*fmBlockRows), b0, b1)
	})
}

// ForwardSoftFM evaluates a gate layer on a batch of rows: for every gate k
// of the Groups*Out and row r,
//
//	y[k][r] = c0 + c1*a + c2*b + c3*a*b,   c = coeffs[k,:],
//
// a and b being the input features that w wires to k. Spans of rows are
// processed in parallel. It panics if the lengths disagree with d.
func ForwardSoftFM[F Float](y, x, coeffs []F, w Wiring, d Dims) {
	d.check("ForwardSoftFM", w, len(x), len(y), len(coeffs))
	forSpans(d.Rows, func(lo, hi, _, _ int) { forwardRows(y, x, coeffs, w, d, lo, hi) })
}

// ForwardSoftFMRows is ForwardSoftFM over rows [lo, hi) only, on the
// calling goroutine: for an executor that schedules the rows itself (dlca's
// step runs a tile of rows through several layers in a row). The other
// rows of y are left alone. It panics if the lengths disagree with d or the
// rows are out of range.
func ForwardSoftFMRows[F Float](y, x, coeffs []F, w Wiring, d Dims, lo, hi int) {
	d.check("ForwardSoftFMRows", w, len(x), len(y), len(coeffs))
	if lo < 0 || hi > d.Rows || lo > hi {
		panic(fmt.Sprintf("gates: ForwardSoftFMRows: rows [%d, %d) of %d", lo, hi, d.Rows))
	}
	forwardRows(y, x, coeffs, w, d, lo, hi)
}

// forwardRows is ForwardSoftFM over rows [lo, hi), unchecked.
func forwardRows[F Float](y, x, coeffs []F, w Wiring, d Dims, lo, hi int) {
	rows := d.Rows
	for g := range d.Groups {
		for j := range d.Out {
			k := g*d.Out + j
			fa, fb := d.operands(w, g, j)
			c := coeffs[4*k : 4*k+4]
			forwardGateFM(y[k*rows+lo:k*rows+hi], x[fa*rows+lo:fa*rows+hi], x[fb*rows+lo:fb*rows+hi], c[0], c[1], c[2], c[3])
		}
	}
}

// BackwardSoftFM is ForwardSoftFM's backward pass. Given g = dL/dy
// ([Groups*Out][Rows]) it writes dx = dL/dx (x's layout, overwritten) and,
// unless sums is nil, the four sums per gate over the rows,
//
//	sums[k,:] = (sum g, sum g*a, sum g*b, sum g*a*b),
//
// from which LogitGrads derives the logit gradient: dL/da = g*(c1 + c3*b)
// and dL/db = g*(c2 + c3*a), summed over the gates (and, for a shared
// input, the groups) that read each input. Each goroutine takes a span of
// rows over all the layer's features, so no two write one element of dx,
// and adds each element's terms in gate order (group by group, a before b
// within a gate: the order of a ReverseIndex). The sums run in F over
// blocks of 128 rows (in two chains of alternate rows), then in float64
// added in block order. The result therefore depends neither on the number
// of workers nor on the spans. BackwardSoftFM panics if the lengths
// disagree with d.
func BackwardSoftFM[F Float](dx []F, sums []float64, g, x, coeffs []F, w Wiring, d Dims) {
	d.check("BackwardSoftFM", w, len(x), len(g), len(coeffs))
	if len(dx) != len(x) {
		panic(fmt.Sprintf("gates: BackwardSoftFM: dx has %d elements, x %d", len(dx), len(x)))
	}
	if sums != nil && len(sums) != 4*d.Gates() {
		panic(fmt.Sprintf("gates: BackwardSoftFM: sums has %d elements, want %d", len(sums), 4*d.Gates()))
	}
	var partial []float64
	if sums != nil {
		partial = make([]float64, d.PartialLen())
	}
	forSpans(d.Rows, func(_, _, b0, b1 int) { backwardBlocks(dx, partial, g, x, coeffs, w, d, b0, b1) })
	if sums != nil {
		AddPartialSums(sums, partial)
	}
}

// BlockRows is the number of rows over which the backward pass sums in F,
// whatever the layer's shape or the number of workers: the blocks' sums
// are then added in float64 in block order, so the block size fixes the
// result's rounding. Block b is rows [b*BlockRows, (b+1)*BlockRows), the
// last one possibly shorter.
const BlockRows = fmBlockRows

// Blocks returns the number of blocks of d.Rows rows.
func (d Dims) Blocks() int { return ceilDiv(d.Rows, fmBlockRows) }

// PartialLen is the length of BackwardSoftFMBlocks' partial sums: four per
// gate and block.
func (d Dims) PartialLen() int { return d.Blocks() * 4 * d.Gates() }

// BackwardSoftFMBlocks is BackwardSoftFM over blocks [b0, b1) of the rows
// only (see BlockRows), on the calling goroutine: it overwrites dx on those
// rows and, unless partial is nil, writes each of those blocks' four sums
// per gate into partial (d.PartialLen values, block b's run at b*4*Gates).
// Once every block is done, AddPartialSums gives BackwardSoftFM's sums, bit
// for bit. Calls on disjoint blocks may run at the same time. It panics if
// the lengths disagree with d or the blocks are out of range.
func BackwardSoftFMBlocks[F Float](dx []F, partial []float64, g, x, coeffs []F, w Wiring, d Dims, b0, b1 int) {
	d.check("BackwardSoftFMBlocks", w, len(x), len(g), len(coeffs))
	switch {
	case len(dx) != len(x):
		panic(fmt.Sprintf("gates: BackwardSoftFMBlocks: dx has %d elements, x %d", len(dx), len(x)))
	case partial != nil && len(partial) != d.PartialLen():
		panic(fmt.Sprintf("gates: BackwardSoftFMBlocks: partial has %d elements, want %d", len(partial), d.PartialLen()))
	case b0 < 0 || b1 > d.Blocks() || b0 > b1:
		panic(fmt.Sprintf("gates: BackwardSoftFMBlocks: blocks [%d, %d) of %d", b0, b1, d.Blocks()))
	}
	backwardBlocks(dx, partial, g, x, coeffs, w, d, b0, b1)
}

// backwardBlocks is BackwardSoftFM over blocks [b0, b1), unchecked.
func backwardBlocks[F Float](dx []F, partial []float64, g, x, coeffs []F, w Wiring, d Dims, b0, b1 int) {
	rows, gates := d.Rows, d.Gates()
	lo, hi := b0*fmBlockRows, min(rows, b1*fmBlockRows)
	for f := range d.inputs() {
		clear(dx[f*rows+lo : f*rows+hi])
	}
	for grp := range d.Groups {
		for j := range d.Out {
			k := grp*d.Out + j
			fa, fb := d.operands(w, grp, j)
			xa, xb := x[fa*rows+lo:fa*rows+hi], x[fb*rows+lo:fb*rows+hi]
			da, db := dx[fa*rows+lo:fa*rows+hi], dx[fb*rows+lo:fb*rows+hi]
			gk := g[k*rows+lo : k*rows+hi]
			c := coeffs[4*k : 4*k+4]
			// Up to callBlocks blocks at a time: the vector loop takes the
			// whole ones in one call, backwardGateFM the rest (a last,
			// shorter block, or all of them without a vector loop).
			for blk := b0; blk < b1; blk += callBlocks {
				n := min(callBlocks, b1-blk)
				l, h := blk*fmBlockRows-lo, min(hi, (blk+n)*fmBlockRows)-lo
				var sums [callBlocks][4]F
				var acc [8 * callBlocks]float32
				for i := backwardVectorBlocks(da[l:h], db[l:h], gk[l:h], xa[l:h], xb[l:h], c[1], c[2], c[3], sums[:], acc[:]); i < n; i++ {
					l, h := (blk+i)*fmBlockRows-lo, min(hi, (blk+i+1)*fmBlockRows)-lo
					sums[i] = backwardGateFM(da[l:h], db[l:h], gk[l:h], xa[l:h], xb[l:h], c[1], c[2], c[3])
				}
				if partial != nil {
					for i, s := range sums[:n] {
						p := partial[((blk+i)*gates+k)*4 : ((blk+i)*gates+k+1)*4]
						p[0], p[1], p[2], p[3] = float64(s[0]), float64(s[1]), float64(s[2]), float64(s[3])
					}
				}
			}
		}
	}
}

// forwardGateFM sets y[r] = c0 + c1*a + c2*b + c3*a*b for a, b = xa[r], xb[r].
// Where there is one, forwardVector does the first rows with the same
// arithmetic; the loop below does the rest.
//
// NOTE: every product is converted to F before it is added. The Go spec
// lets the compiler fuse x*y + z into one multiply-add (and Go 1.26 does
// with GOAMD64=v3), which rounds once instead of twice; an explicit
// conversion rounds the product and forbids that, so these loops give the
// same bits on every build, and the same as the AVX2 loops, which multiply
// and add separately. The same holds in backwardGateFM.
func forwardGateFM[F Float](y, xa, xb []F, c0, c1, c2, c3 F) {
	xb, y = xb[:len(xa)], y[:len(xa)]
	n := forwardVector(y, xa, xb, c0, c1, c2, c3)
	xa, xb, y = xa[n:], xb[n:], y[n:]
	for r, a := range xa {
		b := xb[r]
		y[r] = c0 + F(a*(c1+F(c3*b))) + F(c2*b)
	}
}

// backwardGateFM adds one gate's input gradients over a block of rows,
// g*(c1 + c3*b) to da and g*(c2 + c3*a) to db, and returns its four sums
// (sum g, g*a, g*b, g*a*b) over the block. Where there is one,
// backwardVector does the first rows in the same order (an even number, so
// the chains keep their rows); the loop below does the rest.
func backwardGateFM[F Float](da, db, g, xa, xb []F, c1, c2, c3 F) [4]F {
	xb, da, db, g = xb[:len(xa)], da[:len(xa)], db[:len(xa)], g[:len(xa)]
	// NOTE: two sets of accumulators, for even and odd rows, halve the
	// chain of dependent additions that bounds this loop.
	var acc [8]F
	r := backwardVector(da, db, g, xa, xb, c1, c2, c3, &acc)
	s0, s1, s2, s3, t0, t1, t2, t3 := acc[0], acc[1], acc[2], acc[3], acc[4], acc[5], acc[6], acc[7]
	for ; r+1 < len(xa); r += 2 {
		a, b, gr := xa[r], xb[r], g[r]
		da[r] += F(gr * (c1 + F(c3*b)))
		db[r] += F(gr * (c2 + F(c3*a)))
		ga := F(gr * a)
		s0 += gr
		s1 += ga
		s2 += F(gr * b)
		s3 += F(ga * b)
		a, b, gr = xa[r+1], xb[r+1], g[r+1]
		da[r+1] += F(gr * (c1 + F(c3*b)))
		db[r+1] += F(gr * (c2 + F(c3*a)))
		ga = F(gr * a)
		t0 += gr
		t1 += ga
		t2 += F(gr * b)
		t3 += F(ga * b)
	}
	if r < len(xa) {
		a, b, gr := xa[r], xb[r], g[r]
		da[r] += F(gr * (c1 + F(c3*b)))
		db[r] += F(gr * (c2 + F(c3*a)))
		ga := F(gr * a)
		s0 += gr
		s1 += ga
		s2 += F(gr * b)
		s3 += F(ga * b)
	}
	return [4]F{s0 + t0, s1 + t1, s2 + t2, s3 + t3}
}

// AddPartialSums sets sums (4 per gate) to the sum of the blocks' partial
// sums (partial holds one len(sums) run per block, as BackwardSoftFMBlocks
// writes them), added in block order so that the result does not depend
// on which worker computed which block. It panics unless partial holds a
// whole number of runs.
func AddPartialSums(sums, partial []float64) {
	if len(sums) == 0 || len(partial)%len(sums) != 0 {
		panic(fmt.Sprintf("gates: AddPartialSums: %d partial sums for %d sums", len(partial), len(sums)))
	}
	clear(sums)
	for c := 0; c < len(partial); c += len(sums) {
		for i, v := range partial[c : c+len(sums)] {
			sums[i] += v
		}
	}
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }
