// autograd/strided.wgsl: out[i] = in[offset(i)], a strided gather of a
// contiguous copy: Expand (stride 0 along broadcast axes), Permute.
//
// Entry point: main; workgroup size 64; a grid-stride loop over the elements.
// Bindings (group 0):
//   0 uniform EwParams (Go: ewParams); n, ndim, st rows 0-1 the output
//     shape, rows 2-3 the input's strides
//   1 storage rw out: array<f32>, [n]
//   2 storage read src: array<f32>

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

@group(0) @binding(0) var<uniform> params: EwParams;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> src: array<f32>;

// dimOf returns entry k of row row of params.st: row 0 is the output
// shape, rows 1, 2 and 3 the strides of the operands.
fn dimOf(row: u32, k: u32) -> u32 {
    return params.st[2u * row + k / 4u][k % 4u];
}

// offsetOf returns the storage offset of output element i in the operand
// whose strides are row row (0 along a broadcast axis).
fn offsetOf(i: u32, row: u32) -> u32 {
    var rem = i;
    var off = 0u;
    for (var d = i32(params.ndim) - 1; d >= 0; d--) {
        let len = dimOf(0u, u32(d));
        off += (rem % len) * dimOf(row, u32(d));
        rem /= len;
    }
    return off;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    for (var i = gid.x; i < params.n; i += nwg.x * 64u) {
        out[i] = src[offsetOf(i, 1u)];
    }
}
