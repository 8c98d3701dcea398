package dlca

import "github.com/dlca/dlca/gates"

// The pieces of the fused step between its gate layers, on plain slices in
// the step's feature-major layout (see GatherNeighbourhood for the first).
// The step op runs them; other executors that keep their own buffers (the
// GPU's CPU twin) call the very same functions.

// AssembleUpdateInput writes the update network's input [UpdateInputs][cells]:
// feature ch < C is the cell's own channel ch, feature C + (ch*S + s)*K + k
// is kernel k's bit s on channel ch (the paper's notebook order). state is
// [cells, C] and percep the last kernel layer's output [(k*S + s)][ch*cells
// + cell], for K kernels of S bits.
func AssembleUpdateInput[F gates.Float](uin, state, percep []F, cells, c, k, s int) {
	gates.Transpose(uin[:cells*c], state, cells, c) // the own channels
	assembleUpdateInputRows(uin, percep, 0, cells*c, cells, c, k, s)
}

// assembleUpdateInputRows writes the perception features of uin that come
// from the perception rows [lo, hi) (row ch*cells + cell is channel ch of
// a cell): percep is the last kernel layer's output on those rows only,
// [(k*S + s)][hi-lo].
func assembleUpdateInputRows[F gates.Float](uin, percep []F, lo, hi, cells, c, k, s int) {
	forUpdateInputRuns(lo, hi, cells, c, k, s, func(f, p, n int) { copy(uin[f:f+n], percep[p:p+n]) })
}

// SplitUpdateInputGrad is AssembleUpdateInput's backward pass: it adds the own
// part of duin to dstate ([cells, C]) and writes the perception part to
// dpercep.
func SplitUpdateInputGrad[F gates.Float](dstate, dpercep, duin []F, cells, c, k, s int) {
	for ch := range c {
		for cell, v := range duin[ch*cells : (ch+1)*cells] {
			dstate[cell*c+ch] += v
		}
	}
	splitUpdateInputGradRows(dpercep, duin, 0, cells*c, cells, c, k, s)
}

// splitUpdateInputGradRows is assembleUpdateInputRows' backward pass: it
// writes dpercep ([(k*S + s)][hi-lo]) from the gradient duin of the update
// network's input.
func splitUpdateInputGradRows[F gates.Float](dpercep, duin []F, lo, hi, cells, c, k, s int) {
	forUpdateInputRuns(lo, hi, cells, c, k, s, func(f, p, n int) { copy(dpercep[p:p+n], duin[f:f+n]) })
}

// forUpdateInputRuns calls run(f, p, n) for every run of n values that
// the perception rows [lo, hi) give the update network's input: its
// elements f .. f+n-1 are those p .. p+n-1 of the last kernel layer's
// output over those rows, [(k*S + s)][hi-lo].
func forUpdateInputRuns(lo, hi, cells, c, k, s int, run func(f, p, n int)) {
	rows := hi - lo
	for r := lo; r < hi; {
		ch, first := r/cells, r%cells
		n := min(cells-first, hi-r) // the rest of the rows in this channel
		for b := range s {
			for kk := range k {
				f := c + (ch*s+b)*k + kk
				run(f*cells+first, (kk*s+b)*rows+r-lo, n)
			}
		}
		r += n
	}
}

// SelectFired writes the next state next ([cells, C]): a cell that fires
// takes the update network's output upd ([C][cells], feature-major), one
// that does not keeps its state ([cells, C]). fire has one flag per cell,
// or is nil when every cell fires (a synchronous step).
func SelectFired[F gates.Float](next, state, upd []F, fire []bool, cells, c int) {
	for cell := range cells {
		fired := fire == nil || fire[cell]
		for ch := range c {
			if fired {
				next[cell*c+ch] = upd[ch*cells+cell]
			} else {
				next[cell*c+ch] = state[cell*c+ch]
			}
		}
	}
}

// SplitFiredGrad is SelectFired's backward pass: the gradient dnext of the
// next state goes to the update output (dupd, [C][cells]) where the cell
// fired and to the old state (dstate, [cells, C]) where it did not. Both are
// overwritten, with zeros where the other one takes the gradient.
func SplitFiredGrad[F gates.Float](dupd, dstate, dnext []F, fire []bool, cells, c int) {
	for cell := range cells {
		fired := fire == nil || fire[cell]
		for ch := range c {
			v := dnext[cell*c+ch]
			if fired {
				dupd[ch*cells+cell], dstate[cell*c+ch] = v, 0
			} else {
				dupd[ch*cells+cell], dstate[cell*c+ch] = 0, v
			}
		}
	}
}
