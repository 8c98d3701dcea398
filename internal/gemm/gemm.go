package gemm

import (
	"runtime"
	"sync"

	"github.com/dlca/dlca/internal/buffers"
)

// Block sizes: kc terms of the reduction per packed panel pair, mc rows of
// A packed at a time (a multiple of mr), nc columns of B (a multiple of nr).
// A packed kc×mc block of A (96 KiB for float32) sits in L2, one kc×nr
// panel of B (16 KiB) in L1.
const (
	kc = 256
	mc = 96
	nc = 2048
)

// Sgemm sets c (m×n, row stride ldc) to op(a)·op(b) + beta·c, where op(a)
// is m×k (a is k×m, row stride lda, when ta) and op(b) is k×n (b is n×k,
// row stride ldb, when tb). It uses up to threads goroutines (GOMAXPROCS
// when threads <= 0); the result has the same bits for any thread count.
// With k = 0, c is scaled by beta.
func Sgemm(ta, tb bool, m, n, k int, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int, threads int) {
	run(&f32Kernel, ta, tb, m, n, k, a, lda, b, ldb, beta, c, ldc, threads)
}

// Dgemm is Sgemm for float64.
func Dgemm(ta, tb bool, m, n, k int, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int, threads int) {
	run(&f64Kernel, ta, tb, m, n, k, a, lda, b, ldb, beta, c, ldc, threads)
}

// Float is the element type of a product.
type Float interface{ ~float32 | ~float64 }

// kernel is one element type's micro-kernel and its tile shape.
type kernel[T Float] struct {
	mr, nr int
	// micro sets the mr×nr tile at c (row stride ldc) to the sum over p
	// < k of ap[p*mr+i]·bp[p*nr+j], or adds that sum to it when add.
	micro func(k int, ap, bp, c []T, ldc int, add bool)
	pool  buffers.List[T] // packing buffers
}

// FreeBuffers lets go of the packing buffers kept between products.
func FreeBuffers() {
	f32Kernel.pool.Clear()
	f64Kernel.pool.Clear()
}

// MinWork is the number of multiply-adds (m·n·k) below which a product runs
// on one goroutine: starting goroutines costs microseconds.
const MinWork = 1 << 17

func run[T Float](kn *kernel[T], ta, tb bool, m, n, k int, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int, threads int) {
	if m <= 0 || n <= 0 {
		return
	}
	if beta != 0 && beta != 1 || k == 0 {
		scale(m, n, beta, c, ldc)
		if k == 0 {
			return
		}
		beta = 1
	}
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	if m*n*k < MinWork {
		threads = 1
	}
	// Split the longer side of C into parts of whole micro-tiles.
	rowTiles, colTiles := (m+kn.mr-1)/kn.mr, (n+kn.nr-1)/kn.nr
	splitRows := rowTiles >= colTiles
	tiles := colTiles
	if splitRows {
		tiles = rowTiles
	}
	threads = max(1, min(threads, tiles))
	if threads == 1 {
		serial(kn, ta, tb, m, n, k, a, lda, b, ldb, beta, c, ldc)
		return
	}
	var wg sync.WaitGroup
	for w := range threads {
		lo, hi := tiles*w/threads, tiles*(w+1)/threads
		wg.Go(func() {
			if splitRows {
				r0, r1 := lo*kn.mr, min(hi*kn.mr, m)
				as := offset(a, ta, r0, lda)
				serial(kn, ta, tb, r1-r0, n, k, as, lda, b, ldb, beta, c[r0*ldc:], ldc)
			} else {
				c0, c1 := lo*kn.nr, min(hi*kn.nr, n)
				bs := offset(b, !tb, c0, ldb)
				serial(kn, ta, tb, m, c1-c0, k, a, lda, bs, ldb, beta, c[c0:], ldc)
			}
		})
	}
	wg.Wait()
}

// offset returns s from row (or, when byColumn, column) i of an operand
// with row stride ld: the sub-operand starting at op-row i of op(A) or
// op-column i of op(B).
func offset[T Float](s []T, byColumn bool, i, ld int) []T {
	if byColumn {
		return s[i:]
	}
	return s[i*ld:]
}

// scale sets c to beta·c.
func scale[T Float](m, n int, beta T, c []T, ldc int) {
	for i := range m {
		row := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(row)
			continue
		}
		for j := range row {
			row[j] *= beta
		}
	}
}

// serial computes the product on the calling goroutine, beta being 0 or 1.
func serial[T Float](kn *kernel[T], ta, tb bool, m, n, k int, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	mr, nr := kn.mr, kn.nr
	bufA := kn.pool.Get(mc * kc)
	bufB := kn.pool.Get(min(nc, (n+nr-1)/nr*nr) * kc)
	defer kn.pool.Put(bufA)
	defer kn.pool.Put(bufB)
	ap, bp := *bufA, *bufB
	var tile [6 * 16]T // scratch for edge tiles: mr·nr <= 96
	for jc := 0; jc < n; jc += nc {
		ncb := min(nc, n-jc)
		for pc := 0; pc < k; pc += kc {
			kcb := min(kc, k-pc)
			add := pc > 0 || beta == 1
			packB(tb, kcb, ncb, nr, b, ldb, pc, jc, bp)
			for ic := 0; ic < m; ic += mc {
				mcb := min(mc, m-ic)
				packA(ta, mcb, kcb, mr, a, lda, ic, pc, ap)
				for jr := 0; jr < ncb; jr += nr {
					bpan := bp[jr*kcb : (jr+nr)*kcb]
					cols := min(nr, ncb-jr)
					for ir := 0; ir < mcb; ir += mr {
						apan := ap[ir*kcb : (ir+mr)*kcb]
						rows := min(mr, mcb-ir)
						ct := c[(ic+ir)*ldc+jc+jr:]
						if rows == mr && cols == nr {
							kn.micro(kcb, apan, bpan, ct, ldc, add)
							continue
						}
						kn.micro(kcb, apan, bpan, tile[:], nr, false)
						for i := range rows {
							dst := ct[i*ldc : i*ldc+cols]
							src := tile[i*nr : i*nr+cols]
							if add {
								for j := range dst {
									dst[j] += src[j]
								}
							} else {
								copy(dst, src)
							}
						}
					}
				}
			}
		}
	}
}

// packA packs rows [ic, ic+mcb) and reduction terms [pc, pc+kcb) of op(a)
// into panels of mr rows: panel r holds, for each p, its mr values of
// column p, zero past the last row.
func packA[T Float](ta bool, mcb, kcb, mr int, a []T, lda, ic, pc int, ap []T) {
	for ir := 0; ir < mcb; ir += mr {
		pan := ap[ir*kcb : (ir+mr)*kcb]
		rows := min(mr, mcb-ir)
		if ta { // op(a)[i][p] = a[p][i]: rows of a are contiguous in i
			for p := range kcb {
				src := a[(pc+p)*lda+ic+ir:]
				dst := pan[p*mr : p*mr+mr]
				copy(dst, src[:rows])
				clear(dst[rows:])
			}
			continue
		}
		if rows == 6 && mr == 6 {
			row := func(i int) []T { return a[(ic+ir+i)*lda+pc : (ic+ir+i)*lda+pc+kcb] }
			interleave6(pan, row(0), row(1), row(2), row(3), row(4), row(5))
			continue
		}
		for i := range rows {
			src := a[(ic+ir+i)*lda+pc : (ic+ir+i)*lda+pc+kcb]
			for p, v := range src {
				pan[p*mr+i] = v
			}
		}
		for i := rows; i < mr; i++ {
			for p := range kcb {
				pan[p*mr+i] = 0
			}
		}
	}
}

// interleave6 sets dst[6p+i] to row i's element p: six rows of one length
// into a packed panel, with the bounds checked once per row.
func interleave6[T Float](dst, r0, r1, r2, r3, r4, r5 []T) {
	n := len(r0)
	r1, r2, r3, r4, r5 = r1[:n], r2[:n], r3[:n], r4[:n], r5[:n]
	dst = dst[:6*n]
	for p := range n {
		d := dst[6*p : 6*p+6 : 6*p+6]
		d[0], d[1], d[2], d[3], d[4], d[5] = r0[p], r1[p], r2[p], r3[p], r4[p], r5[p]
	}
}

// interleave4 sets dst[stride·p+i] to row i's element p, for four rows.
func interleave4[T Float](dst []T, stride int, r0, r1, r2, r3 []T) {
	n := len(r0)
	r1, r2, r3 = r1[:n], r2[:n], r3[:n]
	for p := range n {
		d := dst[stride*p : stride*p+4 : stride*p+4]
		d[0], d[1], d[2], d[3] = r0[p], r1[p], r2[p], r3[p]
	}
}

// packB packs reduction terms [pc, pc+kcb) and columns [jc, jc+ncb) of
// op(b) into panels of nr columns: panel j holds, for each p, its nr values
// of row p, zero past the last column.
func packB[T Float](tb bool, kcb, ncb, nr int, b []T, ldb, pc, jc int, bp []T) {
	for jr := 0; jr < ncb; jr += nr {
		pan := bp[jr*kcb : (jr+nr)*kcb]
		cols := min(nr, ncb-jr)
		if !tb {
			for p := range kcb {
				src := b[(pc+p)*ldb+jc+jr:]
				dst := pan[p*nr : p*nr+nr]
				copy(dst, src[:cols])
				clear(dst[cols:])
			}
			continue
		}
		j := 0
		row := func(j int) []T { return b[(jc+jr+j)*ldb+pc : (jc+jr+j)*ldb+pc+kcb] }
		for ; j+4 <= cols; j += 4 { // op(b)[p][j] = b[j][p], four rows of b at a time
			interleave4(pan[j:], nr, row(j), row(j+1), row(j+2), row(j+3))
		}
		for ; j < cols; j++ {
			for p, v := range row(j) {
				pan[p*nr+j] = v
			}
		}
		for j := cols; j < nr; j++ {
			for p := range kcb {
				pan[p*nr+j] = 0
			}
		}
	}
}
