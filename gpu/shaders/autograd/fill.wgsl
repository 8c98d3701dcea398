// uses: params
// autograd/fill.wgsl: out[i] = p0 for every element (autograd Fill, and the
// constants of ZerosLike, Full and the implicit seed of Backward).
//
// Entry point: main; workgroup size 64; a grid-stride loop over the elements.
// Bindings (group 0):
//   0 uniform EwParams (Go: ewParams); n, p0
//   1 storage rw out: array<f32>, [n]

@group(0) @binding(0) var<uniform> params: EwParams;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    for (var i = gid.x; i < params.n; i += nwg.x * 64u) {
        out[i] = params.p0;
    }
}
