// autograd/where.wgsl: out[i] = a where mask is non-zero (or NaN), else b;
// the three operands broadcast to the output's shape (autograd Where).
//
// Entry point: main; workgroup size 64; a grid-stride loop over the elements.
// Bindings (group 0):
//   0 uniform EwParams (Go: ewParams); n, ndim, st: output shape, then
//     the strides of mask, a and b
//   1 storage rw out: array<f32>, [n]
//   2 storage read mask: array<f32>
//   3 storage read a: array<f32>
//   4 storage read b: array<f32>

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
@group(0) @binding(2) var<storage, read> mask: array<f32>;
@group(0) @binding(3) var<storage, read> a: array<f32>;
@group(0) @binding(4) var<storage, read> b: array<f32>;

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

// isNaN tests the bits: a compiler may fold x != x away.
fn isNaN(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    for (var i = gid.x; i < params.n; i += nwg.x * 64u) {
        let m = mask[offsetOf(i, 1u)];
        if (m != 0.0 || isNaN(m)) {
            out[i] = a[offsetOf(i, 2u)];
        } else {
            out[i] = b[offsetOf(i, 3u)];
        }
    }
}
