// uses: ieee, nan, params
// autograd/adam.wgsl: one Adam or AdamW step in place, as the CPU's
// optim.Adam, from the constants of optim.AdamUpdate (computed in float64 on
// the host):
//   g = g + l2*p;  p = p*decay
//   m = b1*m + (1-b1)*g;  v = b2*v + (1-b2)*g*g
//   vh = max(vmax, v) with AMSGrad (stored back into vmax), else v
//   p = p - step_size*m / (sqrt(vh)/sqrt_bc2 + eps)
//
// Entry point: main; workgroup size 64; a grid-stride loop over the elements.
// Bindings (group 0):
//   0 uniform AdamUpdateParams (Go: adamUpdateParams); amsgrad 1 or 0
//   1 storage rw p: array<f32>, [n]
//   2 storage read g: array<f32>, [n]
//   3 storage rw m: array<f32>, [n]
//   4 storage rw v: array<f32>, [n]
//   5 storage rw vmax: array<f32>, [n] (a spare buffer without AMSGrad: unused)

@group(0) @binding(0) var<uniform> params: AdamUpdateParams;
@group(0) @binding(1) var<storage, read_write> p: array<f32>;
@group(0) @binding(2) var<storage, read> g: array<f32>;
@group(0) @binding(3) var<storage, read_write> m: array<f32>;
@group(0) @binding(4) var<storage, read_write> v: array<f32>;
@group(0) @binding(5) var<storage, read_write> vmax: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    for (var i = gid.x; i < params.n; i += nwg.x * 64u) {
        let gi = g[i] + params.l2 * p[i];
        let pi = p[i] * params.decay;
        let mi = params.b1 * m[i] + (1.0 - params.b1) * gi;
        var vi = params.b2 * v[i] + (1.0 - params.b2) * gi * gi;
        m[i] = mi;
        v[i] = vi;
        if (params.amsgrad != 0u) {
            // The larger, NaN winning as Go's max (WGSL's max may drop it).
            vi = select(vmax[i], vi, vi > vmax[i] || isNaN(vi));
            vi = select(vi, vmax[i], isNaN(vmax[i]));
            vmax[i] = vi;
        }
        // divf: with eps 0 and v 0 the denominator is 0 (0/0 is NaN, as on
        // the CPU, where WGSL's division leaves it undefined).
        p[i] = pi - divf(params.step_size * mi, sqrtf(vi) / params.sqrt_bc2 + params.eps);
    }
}
