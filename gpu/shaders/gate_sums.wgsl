// uses: params
// gate_sums.wgsl: the four per-gate sums that the logit gradient needs,
//   S[g, o] += (sum gy, sum gy*a, sum gy*b, sum gy*a*b) over all rows r,
// on the feature-major layout of gate_forward.wgsl, added to what S already
// holds so that the sums accumulate over the steps of a rollout (the engine
// clears S once per iteration). Each gate's sum is reduced by one workgroup
// in a fixed order: invocation t adds rows t, t+64, ... in turn, then a tree
// over the 64 partial sums. The result does not depend on scheduling:
// deterministic.
//
// Entry point: main; workgroup size 64; each workgroup reduces gates
// wid.x, wid.x + num_workgroups.x, ... (groups*out in all).
// Bindings (group 0):
//   0 uniform GateParams (Go: gateParams)
//   1 storage read  wiring: array<u32>, [out][2] = (A[o], B[o])
//   2 storage read  x: array<f32>, layout as in gate_forward.wgsl
//   3 storage read  gy: array<f32>, [groups*out][rows]
//   4 storage rw    sums: array<f32>, [all gates][4]; gate (g, o) of this
//                   layer is gate_base + g*out + o

@group(0) @binding(0) var<uniform> params: GateParams;
@group(0) @binding(1) var<storage, read> wiring: array<u32>;
@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read> gy: array<f32>;
@group(0) @binding(4) var<storage, read_write> sums: array<f32>;

var<workgroup> partial: array<vec4<f32>, 64>;

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32, @builtin(num_workgroups) nwg: vec3<u32>) {
    let rows = params.rows;
    let n_gates = params.groups * params.out;
    for (var k = wid.x; k < n_gates; k += nwg.x) { // k = g * out + o
        let g = k / params.out;
        let o = k % params.out;
        let fa = (g * params.x_group_stride + wiring[2u * o]) * rows;
        let fb = (g * params.x_group_stride + wiring[2u * o + 1u]) * rows;
        var s = vec4<f32>(0.0);
        for (var r = t; r < rows; r += 64u) {
            let a = x[fa + r];
            let b = x[fb + r];
            let d = gy[k * rows + r];
            s += vec4<f32>(d, d * a, d * b, d * a * b);
        }
        partial[t] = s;
        workgroupBarrier();
        for (var half = 32u; half > 0u; half /= 2u) {
            if (t < half) {
                partial[t] += partial[t + half];
            }
            workgroupBarrier();
        }
        if (t == 0u) {
            let c = (params.gate_base + k) * 4u;
            sums[c] += partial[0].x;
            sums[c + 1u] += partial[0].y;
            sums[c + 2u] += partial[0].z;
            sums[c + 3u] += partial[0].w;
        }
        workgroupBarrier(); // partial is reused for the next gate
    }
}
