// uses: ieee, nan, params, softmax
// autograd/softmax.wgsl: the softmax (op 0) or log-softmax (op 1) of src
// along one axis, viewed as [outer, n, inner], shifted by the slice's
// maximum as on the CPU (by 0 when the maximum is infinite, so that all -Inf
// gives NaN rather than Inf - Inf, as there). One invocation per slice.
//
// Entry point: main; workgroup size 64; a grid-stride loop over the slices.
// Bindings (group 0):
//   0 uniform AxisParams (Go: axisParams)
//   1 storage rw out: array<f32>, [outer*n*inner]
//   2 storage read src: array<f32>, [outer*n*inner]

@group(0) @binding(0) var<uniform> params: AxisParams;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> src: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let total = params.outer * params.inner;
    for (var r = gid.x; r < total; r += nwg.x * 64u) {
        let base = (r / params.inner) * params.n * params.inner + r % params.inner;
        var m = negInf();
        for (var k = 0u; k < params.n; k++) {
            let v = src[base + k * params.inner];
            if (lessf(m, v) || isNaN(v)) {
                m = v;
            }
            if (isNaN(m)) {
                break;
            }
        }
        m = softmaxShift(m);
        var sum = 0.0;
        for (var k = 0u; k < params.n; k++) {
            sum += expf(src[base + k * params.inner] - m);
        }
        let norm = softmaxNorm(params.op, sum);
        for (var k = 0u; k < params.n; k++) {
            let i = base + k * params.inner;
            out[i] = softmaxOut(params.op, src[i] - m, norm);
        }
    }
}
