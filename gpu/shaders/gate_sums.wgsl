// uses: params, gate_sums
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

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32, @builtin(num_workgroups) nwg: vec3<u32>) {
    for (var k = wid.x; k < params.groups * params.out; k += nwg.x) { // k = g * out + o
        gateSums(k, t);
    }
}
