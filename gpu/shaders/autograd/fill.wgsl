// autograd/fill.wgsl: out[i] = p0 for every element (autograd Fill, and the
// constants of ZerosLike, Full and the implicit seed of Backward).
//
// Entry point: main; workgroup size 64; a grid-stride loop over the elements.
// Bindings (group 0):
//   0 uniform EwParams (Go: ewParams); n, p0
//   1 storage rw out: array<f32>, [n]

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

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    for (var i = gid.x; i < params.n; i += nwg.x * 64u) {
        out[i] = params.p0;
    }
}
