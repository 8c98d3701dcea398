// uses: ieee, nan, params
// gate_coeffs.wgsl: from every gate's 16 logits, its softmax probabilities
// and its relaxed form y = c0 + c1*a + c2*b + c3*a*b (the probability-weighted
// sum of the 16 ops' coefficients, taken from the gates package's table).
//
// Entry point: main; workgroup size 64; a grid-stride loop over the gates, all
// gates of a model at once (gates of all layers are numbered consecutively).
// Bindings (group 0):
//   0 uniform CountParams (Go: countParams): n = number of gates
//   1 storage read  table:  array<f32>, [16][4], gates.CoeffTable() (Device.table)
//   2 storage read  logits: array<f32>, [gates][16]
//   3 storage rw    probs:  array<f32>, [gates][16]
//   4 storage rw    coeffs: array<f32>, [gates][4]

@group(0) @binding(0) var<uniform> params: CountParams;
@group(0) @binding(1) var<storage, read> table: array<f32>;
@group(0) @binding(2) var<storage, read> logits: array<f32>;
@group(0) @binding(3) var<storage, read_write> probs: array<f32>;
@group(0) @binding(4) var<storage, read_write> coeffs: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    for (var g = gid.x; g < params.n; g += nwg.x * 64u) {
        let base = g * 16u;
        var m = logits[base];
        for (var i = 1u; i < 16u; i++) {
            m = max(m, logits[base + i]); // safe: a NaN logit dropped here still reaches every probability, through exp(logit - m) and the total
        }
        var total = 0.0;
        for (var i = 0u; i < 16u; i++) {
            let e = expf(logits[base + i] - m); // expf: a NaN logit gives NaN, not what a GPU that assumes no NaN makes of exp(NaN)
            probs[base + i] = e;
            total += e;
        }
        var c = vec4<f32>(0.0);
        for (var i = 0u; i < 16u; i++) {
            let p = probs[base + i] / total;
            probs[base + i] = p;
            c += p * vec4<f32>(table[i * 4u], table[i * 4u + 1u], table[i * 4u + 2u], table[i * 4u + 3u]);
        }
        coeffs[g * 4u] = c.x;
        coeffs[g * 4u + 1u] = c.y;
        coeffs[g * 4u + 2u] = c.z;
        coeffs[g * 4u + 3u] = c.w;
    }
}
