// lib/params.wgsl: every kernel's uniform struct, declared once. Each is
// mirrored field for field by the Go struct that fills it, and
// TestParamsMirrorWGSL holds the two together. Every field is 4 bytes and
// a struct is padded to a multiple of 16 bytes. A kernel asks for this file
// with "// uses: params"; the loader appends it (gpu/shaders.go).

// ClipParams (Go: clipParams, in params.go), the uniform of clip_value.wgsl.
struct ClipParams {
    n: u32,
    limit: f32,
    _pad0: u32,
    _pad1: u32,
}

// PenaltyParams (Go: penaltyParams, in params.go), the uniform of
// state_penalty_grad.wgsl.
struct PenaltyParams {
    n: u32,
    weight: f32,
    _pad0: u32,
    _pad1: u32,
}

// ConvParams (Go: convParams, in tensor_params.go), the uniform of
// col2im.wgsl, im2col.wgsl.
struct ConvParams {
    n: u32,
    c_in: u32,
    h: u32,
    w: u32,
    kh: u32,
    kw: u32,
    out_h: u32,
    out_w: u32,
    stride_h: u32,
    stride_w: u32,
    pad_h: u32,
    pad_w: u32,
    dil_h: u32,
    dil_w: u32,
    _pad0: u32,
    _pad1: u32,
}

// DropoutParams (Go: dropoutParams, in tensor_params.go), the uniform of
// dropout_mask.wgsl.
struct DropoutParams {
    n: u32,
    seed_lo: u32,
    seed_hi: u32,
    threshold: u32,
    scale: f32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

// CellParams (Go: cellParams, in params.go), the uniform of fire_mask.wgsl,
// fire_mask_backward.wgsl, loss.wgsl.
struct CellParams {
    cells: u32,
    channels: u32,
    _pad0: u32,
    _pad1: u32,
}

// GateParams (Go: gateParams, in params.go), the uniform of
// gate_backward_input.wgsl, gate_forward.wgsl, gate_sums.wgsl.
struct GateParams {
    rows: u32,
    in_width: u32,
    out: u32,
    groups: u32,
    x_group_stride: u32,
    gate_base: u32,
    _pad0: u32,
    _pad1: u32,
}

// CountParams (Go: countParams, in params.go), the uniform of
// gate_coeffs.wgsl, gate_hard_coeffs.wgsl, gate_logit_grad.wgsl.
struct CountParams {
    n: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

// GatherParams (Go: gatherParams, in tensor_params.go), the uniform of
// gather.wgsl, scatter_add.wgsl.
struct GatherParams {
    n: u32,
    fill: f32,
    accumulate: u32,
    _pad0: u32,
}

// MatMulParams (Go: matMulParams, in tensor_params.go), the uniform of
// matmul.wgsl.
struct MatMulParams {
    m: u32,
    n: u32,
    k: u32,
    batches: u32,
    reduce: u32,
    a_rs: u32,
    a_cs: u32,
    b_rs: u32,
    b_cs: u32,
    dim0: u32,
    dim1: u32,
    dim2: u32,
    dim3: u32,
    a_stride0: u32,
    a_stride1: u32,
    a_stride2: u32,
    a_stride3: u32,
    b_stride0: u32,
    b_stride1: u32,
    b_stride2: u32,
    b_stride3: u32,
    a_off: u32,
    b_off: u32,
    c_off: u32,
}

// PoolParams (Go: poolParams, in tensor_params.go), the uniform of
// max_pool.wgsl, max_pool_backward.wgsl, max_pool_gather.wgsl.
struct PoolParams {
    planes: u32,
    h: u32,
    w: u32,
    out_h: u32,
    out_w: u32,
    kh: u32,
    kw: u32,
    stride_h: u32,
    stride_w: u32,
    pad_h: u32,
    pad_w: u32,
    dil_h: u32,
    dil_w: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

// GridParams (Go: gridParams, in params.go), the uniform of
// perception_gather.wgsl, perception_gather_backward.wgsl.
struct GridParams {
    batch: u32,
    height: u32,
    width: u32,
    channels: u32,
    periodic: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

// LayoutParams (Go: layoutParams, in tensor_params.go), the uniform of
// strided_copy.wgsl, sum_to.wgsl.
struct LayoutParams {
    n: u32,
    reduce: u32,
    src_off: u32,
    dst_off: u32,
    dim0: u32,
    dim1: u32,
    dim2: u32,
    dim3: u32,
    dim4: u32,
    dim5: u32,
    src_stride0: u32,
    src_stride1: u32,
    src_stride2: u32,
    src_stride3: u32,
    src_stride4: u32,
    src_stride5: u32,
    dst_stride0: u32,
    dst_stride1: u32,
    dst_stride2: u32,
    dst_stride3: u32,
    dst_stride4: u32,
    dst_stride5: u32,
    _pad0: u32,
    _pad1: u32,
}

// ConcatParams (Go: concatParams, in params.go), the uniform of
// update_input.wgsl, update_input_backward.wgsl.
struct ConcatParams {
    cells: u32,
    channels: u32,
    kernels: u32,
    bits: u32,
}

// AdamUpdateParams (Go: adamUpdateParams, in autograd_optim.go), the uniform
// of autograd/adam.wgsl.
struct AdamUpdateParams {
    n: u32,
    amsgrad: u32,
    _pad0: u32,
    _pad1: u32,
    b1: f32,
    b2: f32,
    eps: f32,
    decay: f32,
    l2: f32,
    step_size: f32,
    sqrt_bc2: f32,
    _pad2: u32,
}

// AxisParams (Go: axisParams, in autograd_kernels.go), the uniform of
// autograd/argreduce.wgsl, autograd/reduce.wgsl, autograd/reduce_wide.wgsl,
// autograd/softmax.wgsl.
struct AxisParams {
    outer: u32,
    n: u32,
    inner: u32,
    op: u32,
}

// EwParams (Go: ewParams, in autograd_kernels.go), the uniform of
// autograd/binary.wgsl, autograd/fill.wgsl, autograd/strided.wgsl,
// autograd/unary.wgsl, autograd/where.wgsl.
struct EwParams {
    n: u32,
    ndim: u32,
    op: u32,
    _pad0: u32,
    p0: f32,
    p1: f32,
    _pad1: u32,
    _pad2: u32,
    st: array<vec4<u32>, 8>,
}

// SGDParams (Go: sgdParams, in autograd_optim.go), the uniform of
// autograd/sgd.wgsl.
struct SGDParams {
    n: u32,
    mode: u32,
    first: u32,
    _pad0: u32,
    lr: f32,
    momentum: f32,
    dampening: f32,
    wd: f32,
}
