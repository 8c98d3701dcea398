// uses: params
// autograd/sgd.wgsl: one SGD step in place, as torch.optim.SGD (and the
// CPU's optim.SGD):
//   d = g + wd*p
//   b = d on the first step, else momentum*b + (1-dampening)*d
//   d = d + momentum*b (Nesterov) or b (momentum), d (no momentum)
//   p = p - lr*d
//
// Entry point: main; workgroup size 64; a grid-stride loop over the elements.
// Bindings (group 0):
//   0 uniform SGDParams (Go: sgdParams); mode 0 without momentum, 1 heavy
//     ball, 2 Nesterov; first 1 on the momentum buffer's first step
//   1 storage rw p: array<f32>, [n]
//   2 storage read g: array<f32>, [n]
//   3 storage rw b: array<f32>, [n] (a spare buffer without momentum: unused)

@group(0) @binding(0) var<uniform> params: SGDParams;
@group(0) @binding(1) var<storage, read_write> p: array<f32>;
@group(0) @binding(2) var<storage, read> g: array<f32>;
@group(0) @binding(3) var<storage, read_write> b: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    for (var i = gid.x; i < params.n; i += nwg.x * 64u) {
        var d = g[i] + params.wd * p[i];
        if (params.mode != 0u) {
            var bi = d;
            if (params.first == 0u) {
                bi = params.momentum * b[i] + (1.0 - params.dampening) * d;
            }
            b[i] = bi;
            if (params.mode == 2u) {
                d += params.momentum * bi;
            } else {
                d = bi;
            }
        }
        p[i] = p[i] - params.lr * d;
    }
}
