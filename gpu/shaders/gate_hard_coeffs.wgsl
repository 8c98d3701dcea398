// uses: params
// gate_hard_coeffs.wgsl: every gate's hard coefficients, one-hot on its most
// probable op: the table row of the first of its 16 logits that no later
// one exceeds (gates.Layer.HardOps' argmax, ties to the lowest op), the
// coefficients a straight-through rollout steps forward with (dlca's
// hardCoeffs; the engine's straight.go).
//
// Entry point: main; workgroup size 64; a grid-stride loop over the gates, all
// gates of a model at once (gates of all layers are numbered consecutively).
// Bindings (group 0):
//   0 uniform CountParams (Go: countParams): n = number of gates
//   1 storage read  table:  array<f32>, [16][4], gates.CoeffTable() (Device.table)
//   2 storage read  logits: array<f32>, [gates][16]
//   3 storage rw    hard:   array<f32>, [gates][4]

@group(0) @binding(0) var<uniform> params: CountParams;
@group(0) @binding(1) var<storage, read> table: array<f32>;
@group(0) @binding(2) var<storage, read> logits: array<f32>;
@group(0) @binding(3) var<storage, read_write> hard: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    for (var g = gid.x; g < params.n; g += nwg.x * 64u) {
        let base = g * 16u;
        var best = 0u;
        for (var i = 1u; i < 16u; i++) {
            if (logits[base + i] > logits[base + best]) {
                best = i;
            }
        }
        for (var j = 0u; j < 4u; j++) {
            hard[g * 4u + j] = table[best * 4u + j];
        }
    }
}
