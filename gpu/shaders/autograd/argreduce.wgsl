// uses: ieee, nan, params
// autograd/argreduce.wgsl: the index along one axis of the largest (op 0,
// ArgMax) or smallest (op 1, ArgMin) element of src, viewed as [outer, n,
// inner], written as a float32 into out [outer, 1, inner]: the first index
// on ties and the first NaN where a slice holds one, as on the CPU. One
// invocation per output walks the axis in order; n is never 0. Elements are
// compared by bits (lessf), so a GPU that flushes subnormals still orders
// them.
//
// Entry point: main; workgroup size 64; a grid-stride loop over the outputs.
// Bindings (group 0):
//   0 uniform AxisParams (Go: axisParams)
//   1 storage rw out: array<f32>, [outer*inner]
//   2 storage read src: array<f32>, [outer*n*inner]

@group(0) @binding(0) var<uniform> params: AxisParams;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> src: array<f32>;

const OP_ArgMax: u32 = 0u;
const OP_ArgMin: u32 = 1u;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let total = params.outer * params.inner;
    for (var r = gid.x; r < total; r += nwg.x * 64u) {
        let base = (r / params.inner) * params.n * params.inner + r % params.inner;
        var best = 0u;
        var bv = src[base];
        for (var k = 1u; k < params.n && !isNaN(bv); k++) {
            let v = src[base + k * params.inner];
            let better = select(lessf(bv, v), lessf(v, bv), params.op == OP_ArgMin);
            if (better || isNaN(v)) {
                best = k;
                bv = v;
            }
        }
        out[r] = f32(best);
    }
}
