// uses: broadcast
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

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    for (var i = gid.x; i < params.n; i += nwg.x * 64u) {
        out[i] = src[offsetOf(i, 1u)];
    }
}
