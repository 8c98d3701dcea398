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

// backwardFMAVX2 is backwardGateFM's loop over float32. acc holds the sums
// of the even rows' chains (g, g*a, g*b, g*a*b) then the odd rows'; it adds
// to them in the Go loop's order, two rows per vector addition.
//
//go:noescape
func backwardFMAVX2(da, db, g, xa, xb []float32, c1, c2, c3 float32, acc *[8]float32)

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

// backwardVector runs backwardGateFM's AVX2 loop when F is float32,
// adding to acc, and returns the number of rows it did (0 when it did not
// run).
func backwardVector[F Float](da, db, g, xa, xb []F, c1, c2, c3 F, acc *[8]F) int {
	da32, ok := any(da).([]float32)
	if !useVector || !ok {
		return 0
	}
	backwardFMAVX2(da32, any(db).([]float32), any(g).([]float32), any(xa).([]float32), any(xb).([]float32),
		any(c1).(float32), any(c2).(float32), any(c3).(float32), any(acc).(*[8]float32))
	return len(xa) &^ 7
}
