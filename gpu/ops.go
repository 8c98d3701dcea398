package gpu

// dispatcher records kernel dispatches: a Program, which its caller runs
// as one submission, or an AutogradDevice, which records into the command
// encoder of its ops.
type dispatcher interface {
	// DispatchGroups records shader over workgroups workgroups (capped at
	// what the device keeps busy; kernels loop over the rest) with params
	// in binding 0 and bufs in bindings 1...
	DispatchGroups(shader string, workgroups int, params any, bufs ...*Buffer) error
	// Clear records zeroing b.
	Clear(b *Buffer)
	// device returns the device the dispatches run on.
	device() *Device
}

// Ops records kernels on device buffers: the tensor kernels (matrix
// products, shape and index ops, convolutions, pooling, dropout), the GPU
// side of autograd's general ops, and a gate layer's. A Program embeds
// them, to run them as one submission, as the engine, the tests and the
// benchmarks do; an AutogradDevice records them into its own work.
type Ops struct{ r dispatcher }

// dispatch records shader over threads invocations, in workgroups of
// workgroupSize.
func (o Ops) dispatch(shader string, threads int, params any, bufs ...*Buffer) error {
	return o.r.DispatchGroups(shader, ceilDiv(threads, workgroupSize), params, bufs...)
}
