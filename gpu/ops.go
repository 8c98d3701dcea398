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
}

// Ops records the tensor kernels (matrix products, shape and index ops,
// convolutions) on device buffers: the GPU side of autograd's general ops.
// Get them from a Program (Program.Ops) to run them as one submission, as
// the tests and benchmarks do; an AutogradDevice records them into its own
// work.
type Ops struct{ r dispatcher }

// Ops returns the tensor kernels recorded into p.
func (p *Program) Ops() Ops { return Ops{p} }

// dispatch records shader over threads invocations, in workgroups of
// workgroupSize.
func (o Ops) dispatch(shader string, threads int, params any, bufs ...*Buffer) error {
	return o.r.DispatchGroups(shader, ceilDiv(threads, workgroupSize), params, bufs...)
}
