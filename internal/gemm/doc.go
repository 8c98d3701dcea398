// Package gemm is the project's dense matrix product: C = op(A)·op(B) +
// beta·C for float32 (Sgemm) and float64 (Dgemm), row-major, with op an
// optional transpose of each operand.
//
// It follows the BLIS structure: B is packed into kc×nr column panels and A
// into mr×kc row panels, both zero-padded to whole panels, and a
// register-blocked micro-kernel computes one mr×nr tile of C from one pair
// of panels. On amd64 with AVX2 and FMA (detected at run time) the
// micro-kernel is in assembly: 6×16 for float32 and 6×8 for float64, twelve
// ymm accumulators each. Everywhere else a pure-Go micro-kernel with the
// same structure runs.
//
// Every element of C is computed the same way whatever the number of
// threads: for each block of kc terms of the reduction, in order, a sum
// started at zero and taken over p in order, then added to C (or stored,
// for the first block when beta is 0). Threads split C into tiles of whole
// micro-tiles and never split the reduction, and tiles at the edge of C use
// the same micro-kernel through a scratch tile, so the bits do not depend
// on the thread count. The assembly fuses each multiply-add (one rounding),
// the pure-Go kernel rounds the product and the sum separately on amd64 (on
// arm64 and others the Go compiler may fuse them), so the two paths agree
// to rounding, not to the bit.
//
// The package imports nothing of the project.
package gemm
