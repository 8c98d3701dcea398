// uses: nan, params
// max_pool.wgsl: 2-D max pooling, as autograd.MaxPool2dWith (its CPU
// twin): for each window of each plane, out = its maximum and idx = the
// index within the plane (ih*w + iw) of the first cell holding it in
// row-major order, a NaN winning over every number so that it propagates;
// a window wholly in the padding gives -Inf and index -1. The index is
// stored as f32, exact below 2^24 cells per plane.
//
// Entry point: main; workgroup size 64; a grid-stride loop over the
// planes*out_h*out_w windows.
// Bindings (group 0):
//   0 uniform PoolParams (Go: poolParams)
//   1 storage read  x: array<f32>, [planes][h][w]
//   2 storage rw    out: array<f32>, [planes][out_h][out_w]
//   3 storage rw    idx: array<f32>, the layout of out

@group(0) @binding(0) var<uniform> params: PoolParams;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<storage, read_write> idx: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let windows = params.out_h * params.out_w;
    for (var o = gid.x; o < params.planes * windows; o += nwg.x * 64u) {
        let plane = o / windows;
        let i = i32((o % windows) / params.out_w);
        let j = i32(o % params.out_w);
        let base = plane * params.h * params.w;
        var best = -1;
        var bv = 0.0;
        for (var ki = 0; ki < i32(params.kh); ki++) {
            let ih = i * i32(params.stride_h) - i32(params.pad_h) + ki * i32(params.dil_h);
            if (ih < 0 || ih >= i32(params.h)) {
                continue;
            }
            for (var kj = 0; kj < i32(params.kw); kj++) {
                let iw = j * i32(params.stride_w) - i32(params.pad_w) + kj * i32(params.dil_w);
                if (iw < 0 || iw >= i32(params.w)) {
                    continue;
                }
                let at = ih * i32(params.w) + iw;
                let v = x[base + u32(at)];
                // A NaN wins, and only a later NaN replaces it, as on the
                // CPU (nothing compares greater than a NaN).
                if (best < 0 || isNaN(v) || (!isNaN(bv) && v > bv)) {
                    best = at;
                    bv = v;
                }
            }
        }
        if (best < 0) {
            bv = negInf();
        }
        out[o] = bv;
        idx[o] = f32(best);
    }
}
