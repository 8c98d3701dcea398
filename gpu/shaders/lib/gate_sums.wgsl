// lib/gate_sums.wgsl: one gate's four per-gate sums, the body that
// gate_sums.wgsl and gate_backward.wgsl share (so both give the same bits).
// A kernel asks for it with "// uses: gate_sums" (and params) and declares
// the module-scope names it reads and writes: params (GateParams), wiring,
// x, gy and sums (the workgroup array partial is declared here).

var<workgroup> partial: array<vec4<f32>, 64>;

// gateSums adds gate k's (g*out + o) sums over all rows,
//   (sum gy, sum gy*a, sum gy*b, sum gy*a*b),
// into sums[(gate_base + k)*4 ..]: invocation t adds rows t, t+64, ... in
// turn, then a fixed tree over the 64 partial sums (deterministic). Every
// invocation of the workgroup must call it (it has barriers).
fn gateSums(k: u32, t: u32) {
    let rows = params.rows;
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
