// adamw.wgsl: one AdamW step (PyTorch semantics, decoupled weight decay):
//   p = p * (1 - lr*wd)
//   m = beta1*m + (1-beta1)*g;  v = beta2*v + (1-beta2)*g*g
//   p = p - (lr / (1-beta1^t)) * m / (sqrt(v) / sqrt(1-beta2^t) + eps)
// The per-step factors come from the host (computed in float64) through the
// step buffer, so the uniform stays fixed for the whole run.
//
// Entry point: main; workgroup size 64; a grid-stride loop over the parameters.
// Bindings (group 0):
//   0 uniform AdamParams (Go: adamParams)
//   1 storage read  step: array<f32>, [4] = (1 - lr*wd, lr/(1-beta1^t),
//                   1/sqrt(1-beta2^t), unused) (Go: adamStep)
//   2 storage rw    params: array<f32>, [n]
//   3 storage read  grads:  array<f32>, [n]
//   4 storage rw    m:      array<f32>, [n]
//   5 storage rw    v:      array<f32>, [n]

struct AdamParams {
    n: u32,
    beta1: f32,
    beta2: f32,
    eps: f32,
}

@group(0) @binding(0) var<uniform> hyper: AdamParams;
@group(0) @binding(1) var<storage, read> step: array<f32>;
@group(0) @binding(2) var<storage, read_write> params: array<f32>;
@group(0) @binding(3) var<storage, read> grads: array<f32>;
@group(0) @binding(4) var<storage, read_write> m: array<f32>;
@group(0) @binding(5) var<storage, read_write> v: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    for (var i = gid.x; i < hyper.n; i += nwg.x * 64u) {
        let g = grads[i];
        let mi = hyper.beta1 * m[i] + (1.0 - hyper.beta1) * g;
        let vi = hyper.beta2 * v[i] + (1.0 - hyper.beta2) * g * g;
        m[i] = mi;
        v[i] = vi;
        params[i] = params[i] * step[0] - step[1] * mi / (sqrt(vi) * step[2] + hyper.eps);
    }
}
