// uses: ieee, nan, params, reduce, softmax, tree
// autograd/softmax_wide.wgsl: softmax.wgsl for long axes. One workgroup per
// slice: invocation k takes elements k, k+64, k+128, ... of the slice, and
// the slice's maximum and then its sum of exponentials are combined from
// the 64 partial results pairwise in a fixed tree, so the result is
// deterministic (the sum rounds differently from the CPU's sequential one,
// within the reductions' parity tolerance). The shift, the infinite-maximum
// and NaN rules are softmax.wgsl's. The axis holds at least 64 elements.
//
// Entry point: main; workgroup size 64; a grid-stride loop of workgroups
// over the slices.
// Bindings (group 0):
//   0 uniform AxisParams (Go: axisParams)
//   1 storage rw out: array<f32>, [outer*n*inner]
//   2 storage read src: array<f32>, [outer*n*inner]

@group(0) @binding(0) var<uniform> params: AxisParams;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> src: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let total = params.outer * params.inner;
    for (var r = wid.x; r < total; r += nwg.x) {
        let base = (r / params.inner) * params.n * params.inner + r % params.inner;
        var m = src[base + lid.x * params.inner];
        for (var k = lid.x + 64u; k < params.n; k += 64u) {
            m = combine(OP_Max, m, src[base + k * params.inner]);
        }
        m = softmaxShift(combined(lid.x, OP_Max, m));
        var sum = 0.0;
        for (var k = lid.x; k < params.n; k += 64u) {
            sum += expf(src[base + k * params.inner] - m);
        }
        let norm = softmaxNorm(params.op, combined(lid.x, OP_Sum, sum));
        for (var k = lid.x; k < params.n; k += 64u) {
            let i = base + k * params.inner;
            out[i] = softmaxOut(params.op, src[i] - m, norm);
        }
    }
}
