package gpu

// Uniform structs of the tensor kernels (those autograd's ops run on), in
// the same convention as params.go.

// matMulParams mirrors MatMulParams in matmul.wgsl.
type matMulParams struct {
	M, N, K, Batches uint32
	Reduce           uint32 // batch entries summed into each output matrix
	ARS, ACS         uint32 // row and column strides of op(a)
	BRS, BCS         uint32 // of op(b)
	Dims             [maxBatchDims]uint32
	AStrides         [maxBatchDims]uint32
	BStrides         [maxBatchDims]uint32
	_                [3]uint32
}
