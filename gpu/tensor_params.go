package gpu

// Uniform structs of the tensor kernels (those autograd's ops run on), in
// the same convention as params.go.

// matMulParams mirrors MatMulParams (declared in shaders/lib/params.wgsl),
// the uniform of matmul.wgsl.
type matMulParams struct {
	M, N, K, Batches uint32
	Reduce           uint32 // batch entries summed into each output matrix
	ARS, ACS         uint32 // row and column strides of op(a)
	BRS, BCS         uint32 // of op(b)
	Dims             [maxBatchDims]uint32
	AStrides         [maxBatchDims]uint32
	BStrides         [maxBatchDims]uint32
	AOff, BOff, COff uint32 // where the first matrices start
}

// layoutParams mirrors LayoutParams (declared in shaders/lib/params.wgsl),
// the uniform of strided_copy.wgsl and sum_to.wgsl.
type layoutParams struct {
	N              uint32 // elements (outputs, for sum_to)
	Reduce         uint32 // elements summed into each output
	SrcOff, DstOff uint32
	Dims           [maxLayoutDims]uint32
	SrcStrides     [maxLayoutDims]uint32
	DstStrides     [maxLayoutDims]uint32
	_              [2]uint32
}

// gatherParams mirrors GatherParams (declared in shaders/lib/params.wgsl),
// the uniform of gather.wgsl and scatter_add.wgsl.
type gatherParams struct {
	N          uint32
	Fill       float32
	Accumulate uint32 // scatter_add: 1 adds to dst, 0 overwrites it
	_          uint32
}

// poolParams mirrors PoolParams (declared in shaders/lib/params.wgsl), the
// uniform of max_pool.wgsl, max_pool_backward.wgsl and
// max_pool_gather.wgsl.
type poolParams struct {
	Planes, H, W, OutH, OutW uint32
	KH, KW                   uint32
	StrideH, StrideW         uint32
	PadH, PadW               uint32
	DilH, DilW               uint32
	_                        [3]uint32
}

// dropoutParams mirrors DropoutParams (declared in
// shaders/lib/params.wgsl), the uniform of dropout_mask.wgsl.
type dropoutParams struct {
	N, SeedLo, SeedHi, Threshold uint32
	Scale                        float32
	_                            [3]uint32
}

// convParams mirrors ConvParams (declared in shaders/lib/params.wgsl), the
// uniform of im2col.wgsl and col2im.wgsl.
type convParams struct {
	N, C, H, W       uint32
	KH, KW           uint32
	OutH, OutW       uint32
	StrideH, StrideW uint32
	PadH, PadW       uint32
	DilH, DilW       uint32
	_                [2]uint32
}
