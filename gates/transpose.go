package gates

// transposeTile is the side of the square tiles transposeInto copies, so
// that a tile's source and destination lines stay in the cache.
const transposeTile = 16

// transposeInto writes into dst ([cols][rows]) the transpose of src
// ([rows][cols]): it moves a row-major batch (autograd tensors, whose rows
// are the batch) to and from the kernels' feature-major layout. It panics
// if the lengths disagree with the shape.
//
// NOTE: within a tile, the inner loop runs along the longer side, so that
// the strided accesses step by the shorter one. The long side is a batch of
// rows, often a power of two: stepping by it (16 KB for 4096 rows) maps a
// tile's lines onto one cache set, and the copy ran several times slower.
func transposeInto[F Float](dst, src []F, rows, cols int) {
	if len(dst) != rows*cols || len(src) != rows*cols {
		panic("gates: transposeInto: lengths disagree with the shape")
	}
	for r0 := 0; r0 < rows; r0 += transposeTile {
		r1 := min(rows, r0+transposeTile)
		for c0 := 0; c0 < cols; c0 += transposeTile {
			c1 := min(cols, c0+transposeTile)
			if rows >= cols { // write dst's lines whole, read src by steps of cols
				for c := c0; c < c1; c++ {
					k := r0*cols + c
					for i := c*rows + r0; i < c*rows+r1; i++ {
						dst[i] = src[k]
						k += cols
					}
				}
				continue
			}
			for r := r0; r < r1; r++ { // read src's lines whole, write dst by steps of rows
				k := c0*rows + r
				for _, v := range src[r*cols+c0 : r*cols+c1] {
					dst[k] = v
					k += rows
				}
			}
		}
	}
}

// Transpose writes into dst ([cols][rows]) the transpose of src
// ([rows][cols]), a cache-friendly copy between a row-major layout and the
// kernels' feature-major one (dlca's step turns its [cells, C] states
// around with it). It panics if the lengths disagree with the shape.
func Transpose[F Float](dst, src []F, rows, cols int) { transposeInto(dst, src, rows, cols) }
