// uses: broadcast, params
// autograd/strided.wgsl: out[i] = in[offset(i)], a strided gather of a
// contiguous copy: Expand (stride 0 along broadcast axes), Permute.
//
// Entry point: main; workgroup size 64; a grid-stride loop over the elements.
// Bindings (group 0):
//   0 uniform EwParams (Go: ewParams); n, ndim, st rows 0-1 the output
//     shape, rows 2-3 the input's strides
//   1 storage rw out: array<f32>, [n]
//   2 storage read src: array<f32>

@group(0) @binding(0) var<uniform> params: EwParams;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> src: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    for (var i = gid.x; i < params.n; i += nwg.x * 64u) {
        out[i] = src[offsetOf(i, 1u)];
    }
}
