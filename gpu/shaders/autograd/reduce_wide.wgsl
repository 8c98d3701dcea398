// uses: ieee, nan, params, reduce, tree
// autograd/reduce_wide.wgsl: reduce.wgsl for long axes. One workgroup per
// output element: invocation k combines elements k, k+64, k+128, ... of
// the slice in order, then the 64 partial results are combined pairwise in
// a fixed tree, so the result is deterministic (a sum rounds differently
// from the CPU's sequential one, within the reductions' parity tolerance).
// Op 0 sums, 1 takes the maximum, 2 the minimum (lib/reduce.wgsl); a NaN
// in a slice gives NaN. The axis holds at least 64 elements.
//
// Entry point: main; workgroup size 64; a grid-stride loop of workgroups
// over the outputs.
// Bindings (group 0):
//   0 uniform AxisParams (Go: axisParams)
//   1 storage rw out: array<f32>, [outer*inner]
//   2 storage read src: array<f32>, [outer*n*inner]

@group(0) @binding(0) var<uniform> params: AxisParams;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> src: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let total = params.outer * params.inner;
    for (var r = wid.x; r < total; r += nwg.x) {
        let base = (r / params.inner) * params.n * params.inner + r % params.inner;
        var acc = src[base + lid.x * params.inner];
        for (var k = lid.x + 64u; k < params.n; k += 64u) {
            acc = combine(params.op, acc, src[base + k * params.inner]);
        }
        let all = combined(lid.x, params.op, acc);
        if (lid.x == 0u) {
            out[r] = all;
        }
    }
}
