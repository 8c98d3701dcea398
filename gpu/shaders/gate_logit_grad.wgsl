// uses: params
// gate_logit_grad.wgsl: the logit gradient of every gate from its four
// accumulated sums S (see gate_sums.wgsl). With the ops' coefficients
// T[i] = (t0, t1, t2, t3) from the gates package's table and p = softmax(w):
//   dL/dp_i = S . T[i]                      (y is linear in p)
//   dL/dw_k = p_k * (dL/dp_k - sum_i p_i dL/dp_i)   (softmax Jacobian)
// The result is added to grads, so several calls accumulate.
//
// Entry point: main; workgroup size 64; a grid-stride loop over the gates, all
// gates of a model.
// Bindings (group 0):
//   0 uniform CountParams (Go: countParams): n = number of gates
//   1 storage read  table: array<f32>, [16][4], gates.CoeffTable()
//   2 storage read  probs: array<f32>, [gates][16], from gate_coeffs.wgsl
//   3 storage read  sums:  array<f32>, [gates][4]
//   4 storage rw    grads: array<f32>, [gates][16]

@group(0) @binding(0) var<uniform> params: CountParams;
@group(0) @binding(1) var<storage, read> table: array<f32>;
@group(0) @binding(2) var<storage, read> probs: array<f32>;
@group(0) @binding(3) var<storage, read> sums: array<f32>;
@group(0) @binding(4) var<storage, read_write> grads: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    for (var g = gid.x; g < params.n; g += nwg.x * 64u) {
        let s = vec4<f32>(sums[g * 4u], sums[g * 4u + 1u], sums[g * 4u + 2u], sums[g * 4u + 3u]);
        var dp: array<f32, 16>;
        var mean = 0.0;
        for (var i = 0u; i < 16u; i++) {
            dp[i] = dot(s, vec4<f32>(table[i * 4u], table[i * 4u + 1u], table[i * 4u + 2u], table[i * 4u + 3u]));
            mean += probs[g * 16u + i] * dp[i];
        }
        for (var k = 0u; k < 16u; k++) {
            grads[g * 16u + k] += probs[g * 16u + k] * (dp[k] - mean);
        }
    }
}
