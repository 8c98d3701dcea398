package gpu

// The structs below mirror the uniform structs of the WGSL kernels, field for
// field, 4 bytes each, padded with blank fields to a multiple of 16 bytes
// (the uniform address space's alignment). params_test.go checks the sizes.

// countParams mirrors CountParams (declared in shaders/lib/params.wgsl),
// the uniform of gate_coeffs.wgsl, gate_hard_coeffs.wgsl and
// gate_logit_grad.wgsl.
type countParams struct {
	N uint32
	_ [3]uint32
}

// gateParams mirrors GateParams (declared in shaders/lib/params.wgsl), the
// uniform of gate_forward.wgsl, gate_backward_input.wgsl, gate_sums.wgsl
// and gate_backward.wgsl.
type gateParams struct {
	Rows, In, Out, Groups uint32
	XGroupStride          uint32 // In, or 0 when the groups share x
	GateBase              uint32 // the layer's first gate in model-wide per-gate buffers
	_                     [2]uint32
}

// clipParams mirrors ClipParams (declared in shaders/lib/params.wgsl), the
// uniform of clip_value.wgsl.
type clipParams struct {
	N     uint32
	Limit float32
	_     [2]uint32
}

// penaltyParams mirrors PenaltyParams (declared in shaders/lib/params.wgsl),
// the uniform of state_penalty_grad.wgsl.
type penaltyParams struct {
	N      uint32
	Weight float32
	_      [2]uint32
}

// gridParams mirrors GridParams (declared in shaders/lib/params.wgsl), the
// uniform of perception_gather.wgsl and perception_gather_backward.wgsl.
type gridParams struct {
	Batch, Height, Width, Channels uint32
	Periodic                       uint32 // 1 for circuit.Periodic, 0 for circuit.Zero
	_                              [3]uint32
}

// concatParams mirrors ConcatParams (declared in shaders/lib/params.wgsl),
// the uniform of update_input.wgsl and update_input_backward.wgsl.
type concatParams struct {
	Cells, Channels, Kernels, Bits uint32
}

// cellParams mirrors CellParams (declared in shaders/lib/params.wgsl), the
// uniform of fire_mask.wgsl, fire_mask_backward.wgsl and loss.wgsl.
type cellParams struct {
	Cells, Channels uint32
	_               [2]uint32
}
