// uses: broadcast, nan, params
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

@group(0) @binding(0) var<uniform> params: EwParams;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> mask: array<f32>;
@group(0) @binding(3) var<storage, read> a: array<f32>;
@group(0) @binding(4) var<storage, read> b: array<f32>;

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
