// uses: params
// max_pool_gather.wgsl: the transpose of max_pool_backward.wgsl, and so
// the gradient of max pooling's gradient with respect to the output
// gradient: out[o] = h[plane][idx[o]] for every window o of each plane, 0
// for a window wholly in the padding (index -1), as autograd's Gather by
// the indices (its CPU twin: the ScatterAdd's own gradient).
//
// Entry point: main; workgroup size 64; a grid-stride loop over the
// windows.
// Bindings (group 0):
//   0 uniform PoolParams (Go: poolParams)
//   1 storage read  h: array<f32>, [planes][h][w]
//   2 storage read  idx: array<f32>, [planes][out_h][out_w]
//   3 storage rw    out: array<f32>, the layout of idx

@group(0) @binding(0) var<uniform> params: PoolParams;
@group(0) @binding(1) var<storage, read> h: array<f32>;
@group(0) @binding(2) var<storage, read> idx: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let windows = params.out_h * params.out_w;
    for (var o = gid.x; o < params.planes * windows; o += nwg.x * 64u) {
        var v = 0.0;
        if (idx[o] >= 0.0) {
            v = h[(o / windows) * params.h * params.w + u32(idx[o])]; // safe: idx[o] >= 0 here, an integer below 2^24 (max_pool wrote it)
        }
        out[o] = v;
    }
}
