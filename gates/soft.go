package gates

import "fmt"

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
	p := newRowPlan(coeffs, w, d)
	gates := d.Gates()
	rows := chunkRows(gates)
	forChunks(ceilDiv(d.Rows, rows), func(_, c int) {
		for r := c * rows; r < min(d.Rows, (c+1)*rows); r++ {
			forwardRow(y[r*gates:(r+1)*gates], x[r*p.in:(r+1)*p.in], p)
		}
	})
}

// BackwardSoft is ForwardSoft's backward pass. Given g = dL/dy
// ([Rows, Groups, Out]) it writes dx = dL/dx (x's layout; skipped when dx is
// nil) and, unless sums is nil, the four sums per gate over the rows,
//
//	sums[g,k,:] = (sum g, sum g*a, sum g*b, sum g*a*b),
//
// from which LogitGrads derives the logit gradient. The input gradient is
// gathered through rev, w's reverse index (NewReverseIndex(w, d.In)):
// dL/da = g*(c1 + c3*b), dL/db = g*(c2 + c3*a), summed over the gates (and,
// for a shared input, the groups) that read each input. Rows are processed
// in parallel in chunks fixed by d alone and the partial sums combined in
// chunk order, so the result does not depend on the number of workers.
// BackwardSoft panics if the lengths disagree with d.
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
	p := newRowPlan(coeffs, w, d)
	p.rev = expandReverse(rev, d)
	gates := d.Gates()
	rows := chunkRows(gates)
	chunks := ceilDiv(d.Rows, rows)
	partial := make([]float64, chunks*4*gates)
	// Per worker: gab, the dL/da and dL/db of every gate for a block of
	// rows ([rowBlock, Groups, Out, 2]), and acc, the running sums.
	nw := workers(chunks)
	gabs := make([]F, nw*rowBlock*2*gates)
	accs := make([][4]F, nw*gates)
	forChunks(chunks, func(w, c int) {
		gab := gabs[w*rowBlock*2*gates : (w+1)*rowBlock*2*gates]
		acc := accs[w*gates : (w+1)*gates]
		s := partial[c*4*gates : (c+1)*4*gates]
		lo, hi := c*rows, min(d.Rows, (c+1)*rows)
		for r0 := lo; r0 < hi; r0 += rowBlock {
			n := min(rowBlock, hi-r0)
			for i := range n {
				r := r0 + i
				backwardRow(gab[i*2*gates:(i+1)*2*gates], acc, g[r*gates:(r+1)*gates], x[r*p.in:(r+1)*p.in], p)
			}
			if dx != nil && n == rowBlock {
				gatherRows(dx[r0*p.in:(r0+rowBlock)*p.in], gab, p.rev)
			} else if dx != nil {
				for i := range n {
					gatherRow(dx[(r0+i)*p.in:(r0+i+1)*p.in], gab[i*2*gates:(i+1)*2*gates], p.rev)
				}
			}
			// NOTE: the sums run in F over at most flushRows rows, then
			// move to float64, so float32 layers lose no precision to long
			// sums.
			if (r0+n-lo)%flushRows == 0 || r0+n == hi {
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
		addChunks(sums, partial)
	}
}

// addChunks sets sums to the sum of the chunks' partial sums (partial holds
// one len(sums) run per chunk), added in chunk order so that the result
// does not depend on which worker computed which chunk.
func addChunks(sums, partial []float64) {
	clear(sums)
	for c := 0; c < len(partial); c += len(sums) {
		for i, v := range partial[c : c+len(sums)] {
			sums[i] += v
		}
	}
}

// The backward kernel takes rows in blocks of rowBlock, through the gates
// one at a time and through the reverse index all at once (gatherRows,
// written for 4 rows, sharing the index loads). It sums in F over flushRows
// rows (a multiple of rowBlock) before moving the sums to float64.
const (
	rowBlock  = 4
	flushRows = 16
)

// rowPlan is a layer's gates laid out for one row of the batch at a time:
// a row holds every group's inputs (In of them when shared, Groups*In
// otherwise) and every group's Groups*Out outputs, so the kernels run one
// loop over all Groups*Out gates per row, whatever the groups. Each column
// is indexed by gate (group-major) with no arithmetic, so the compiler drops
// the bounds checks.
type rowPlan[F Float] struct {
	in             int      // inputs per row
	ab             []uint64 // the gate's inputs within the row, a | b<<32
	c0, c1, c2, c3 []F
	rev            ReverseIndex // over the row's inputs; slots over all gates
}

func newRowPlan[F Float](coeffs []F, w Wiring, d Dims) *rowPlan[F] {
	n := d.Gates()
	p := &rowPlan[F]{in: d.inputs(), ab: make([]uint64, n),
		c0: make([]F, n), c1: make([]F, n), c2: make([]F, n), c3: make([]F, n)}
	for i := range n {
		a, b := d.operands(w, i/d.Out, i%d.Out)
		// NOTE: one word per gate for both indices keeps the kernels' loops
		// within the registers (a second slice made the compiler spill).
		p.ab[i] = uint64(a) | uint64(b)<<32
		p.c0[i], p.c1[i], p.c2[i], p.c3[i] = coeffs[4*i], coeffs[4*i+1], coeffs[4*i+2], coeffs[4*i+3]
	}
	return p
}

// expandReverse turns w's reverse index into the row plan's: input j of
// group g is row input g*In+j (j when shared), and gate k of group g has
// slots 2*(g*Out+k) and 2*(g*Out+k)+1. A shared input's readers are listed
// group by group.
func expandReverse(rev ReverseIndex, d Dims) ReverseIndex {
	slots := 2 * d.Out
	in := d.Groups * d.In
	if d.SharedInput {
		in = d.In
	}
	r := ReverseIndex{Start: make([]int32, 0, in+1), Slot: make([]int32, 0, d.Groups*slots)}
	r.Start = append(r.Start, 0)
	add := func(g, j int) {
		for _, s := range rev.Slot[rev.Start[j]:rev.Start[j+1]] {
			r.Slot = append(r.Slot, int32(g*slots)+s)
		}
	}
	if d.SharedInput {
		for j := range d.In {
			for g := range d.Groups {
				add(g, j)
			}
			r.Start = append(r.Start, int32(len(r.Slot)))
		}
		return r
	}
	for g := range d.Groups {
		for j := range d.In {
			add(g, j)
			r.Start = append(r.Start, int32(len(r.Slot)))
		}
	}
	return r
}

// forwardRow evaluates every gate of the plan on one row.
func forwardRow[F Float](y, x []F, p *rowPlan[F]) {
	n := len(p.ab)
	y, c0, c1, c2, c3 := y[:n], p.c0[:n], p.c1[:n], p.c2[:n], p.c3[:n]
	for k, ab := range p.ab {
		a, b := x[uint32(ab)], x[ab>>32]
		y[k] = c0[k] + F(a*(c1[k]+F(c3[k]*b))) + F(c2[k]*b) // rounded products: see forwardGateFM
	}
}

// backwardRow computes every gate's input gradients on one row into gab
// ([gates, 2]) and adds the row's terms to the four sums acc ([gates]).
func backwardRow[F Float](gab []F, acc [][4]F, g, x []F, p *rowPlan[F]) {
	n := len(p.ab)
	gab, acc, g = gab[:2*n], acc[:n], g[:n]
	c1, c2, c3 := p.c1[:n], p.c2[:n], p.c3[:n]
	for k, ab := range p.ab {
		a, b, gk := x[uint32(ab)], x[ab>>32], g[k]
		gab[2*k] = gk * (c1[k] + F(c3[k]*b))
		gab[2*k+1] = gk * (c2[k] + F(c3[k]*a))
		ga := F(gk * a)
		s := &acc[k]
		s[0] += gk
		s[1] += ga
		s[2] += F(gk * b)
		s[3] += F(ga * b)
	}
}

// gatherRow sets each input's gradient dx[j] to the sum of the per-gate
// gradients gab of the gates reading it, in the reverse index's order.
func gatherRow[F Float](dx, gab []F, rev ReverseIndex) {
	start, slot := rev.Start[1:len(dx)+1], rev.Slot
	e := int(rev.Start[0])
	for j, end := range start {
		var acc F
		for ; e < int(end); e++ {
			acc += gab[slot[e]]
		}
		dx[j] = acc
	}
}

// gatherRows is gatherRow on four consecutive rows at once (dx [4, in],
// gab [4, 2*gates]), sharing the index loads.
func gatherRows[F Float](dx, gab []F, rev ReverseIndex) {
	in, n := len(rev.Start)-1, len(gab)/4
	dx0, dx1, dx2, dx3 := dx[:in], dx[in:2*in], dx[2*in:3*in], dx[3*in:4*in]
	g0, g1, g2, g3 := gab[:n], gab[n:2*n], gab[2*n:3*n], gab[3*n:4*n]
	start, slot := rev.Start[1:in+1], rev.Slot
	e := int(rev.Start[0])
	for j, end := range start {
		var a0, a1, a2, a3 F
		for ; e < int(end); e++ {
			s := slot[e]
			a0 += g0[s]
			a1 += g1[s]
			a2 += g2[s]
			a3 += g3[s]
		}
		dx0[j], dx1[j], dx2[j], dx3[j] = a0, a1, a2, a3
	}
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }
