//go:build amd64 && !purego

package gates

import "golang.org/x/sys/cpu"

// The AVX2 loops of featuremajor_amd64.s. Each handles the first
// len(xa)&^7 rows, eight per iteration, and leaves the rest to the Go loop.
// They use separate multiplies and adds in the Go expressions' order, and
// the Go loops round every product (an explicit conversion, so that no
// GOAMD64 level fuses a multiply-add), so their results are bit for bit
// the Go loops' on every build.

// forwardFMAVX2 is forwardGateFM's loop over float32.
//
//go:noescape
func forwardFMAVX2(y, xa, xb []float32, c0, c1, c2, c3 float32)

// backwardFMAVX2 is backwardGateFM's loop over float32, over the first
// len(xa)&^7 rows in blocks of fmBlockRows: each block's sums start from
// zero and end in acc[8*b : 8*b+8], the even rows' chains (g, g*a, g*b,
// g*a*b) then the odd rows', added in the Go loop's order, two rows per
// vector addition; a block the rows end inside has its sums there too.
//
//go:noescape
func backwardFMAVX2(da, db, g, xa, xb []float32, c1, c2, c3 float32, acc []float32)

// useVector says whether the AVX2 loops may run; tests switch it off to
// check them against the Go loops on the same machine.
var useVector = cpu.X86.HasAVX2

// forwardVector runs forwardGateFM's AVX2 loop when F is float32 and
// returns the number of rows it did (0 when it did not run).
func forwardVector[F Float](y, xa, xb []F, c0, c1, c2, c3 F) int {
	y32, ok := any(y).([]float32)
	if !useVector || !ok {
		return 0
	}
	forwardFMAVX2(y32, any(xa).([]float32), any(xb).([]float32),
		any(c0).(float32), any(c1).(float32), any(c2).(float32), any(c3).(float32))
	return len(xa) &^ 7
}

// backwardVector runs backwardGateFM's AVX2 loop when F is float32 over
// the first rows, at most one block's (the Go loop goes on with the same
// chains beyond), its sums from zero in acc, and returns the number of
// rows it did (0 when it did not run).
func backwardVector[F Float](da, db, g, xa, xb []F, c1, c2, c3 F, acc *[8]F) int {
	da32, ok := any(da).([]float32)
	if !useVector || !ok {
		return 0
	}
	n := min(len(xa), fmBlockRows) &^ 7
	backwardFMAVX2(da32[:n], any(db).([]float32)[:n], any(g).([]float32)[:n], any(xa).([]float32)[:n], any(xb).([]float32)[:n],
		any(c1).(float32), any(c2).(float32), any(c3).(float32), any(acc).(*[8]float32)[:])
	return n
}

// backwardVectorBlocks runs backwardGateFM's AVX2 loop over the whole
// blocks of fmBlockRows rows at the start of the slices in one call when F
// is float32, leaving block b's sums, as backwardGateFM returns them, in
// sums[b], and returns the number of blocks it did (0 when it did not
// run). acc is scratch space of 8 values per block.
func backwardVectorBlocks[F Float](da, db, g, xa, xb []F, c1, c2, c3 F, sums [][4]F, acc []float32) int {
	da32, ok := any(da).([]float32)
	if !useVector || !ok {
		return 0
	}
	n := len(xa) / fmBlockRows
	r := n * fmBlockRows
	backwardFMAVX2(da32[:r], any(db).([]float32)[:r], any(g).([]float32)[:r], any(xa).([]float32)[:r], any(xb).([]float32)[:r],
		any(c1).(float32), any(c2).(float32), any(c3).(float32), acc[:8*n])
	for b := range n {
		a := acc[8*b : 8*b+8]
		sums[b] = [4]F{F(a[0] + a[4]), F(a[1] + a[5]), F(a[2] + a[6]), F(a[3] + a[7])}
	}
	return n
}
