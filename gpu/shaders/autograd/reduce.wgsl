// uses: ieee, nan, params, reduce
// autograd/reduce.wgsl: the reduction of src along one axis, viewed as
// [outer, n, inner], into out [outer, 1, inner]: a sum, a maximum or a
// minimum (op 0, 1, 2: lib/reduce.wgsl). One invocation per output
// element walks the axis in order, from index 0, as the CPU does, so sums
// round as on the CPU; a NaN in a slice gives NaN; the sum of an empty axis
// is 0.
//
// Entry point: main; workgroup size 64; a grid-stride loop over the outputs.
// Bindings (group 0):
//   0 uniform AxisParams (Go: axisParams)
//   1 storage rw out: array<f32>, [outer*inner]
//   2 storage read src: array<f32>, [outer*n*inner]

@group(0) @binding(0) var<uniform> params: AxisParams;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> src: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let total = params.outer * params.inner;
    for (var r = gid.x; r < total; r += nwg.x * 64u) {
        let base = (r / params.inner) * params.n * params.inner + r % params.inner;
        if (params.n == 0u) {
            out[r] = 0.0;
            continue;
        }
        var acc = src[base];
        for (var k = 1u; k < params.n; k++) {
            acc = combine(params.op, acc, src[base + k * params.inner]);
        }
        out[r] = acc;
    }
}
