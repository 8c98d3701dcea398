// uses: params
// max_pool_backward.wgsl: the gradient of max pooling without atomics or a
// read-back of the indices: every input cell sums the output gradients of
// the windows that chose it,
//   gx[plane][cell] = sum over windows o of the plane with idx[o] == cell of gy[o],
// in increasing o, the order in which autograd.MaxPool2dWith's gradient (a
// ScatterAdd by the indices, its CPU twin) adds. Only the windows that can
// contain the cell are visited: for each kernel cell (ki, kj), from the last
// (so that the windows come in increasing order), the window whose
// (ki, kj) lands on it, if any.
//
// Entry point: main; workgroup size 64; a grid-stride loop over the
// elements of gx.
// Bindings (group 0):
//   0 uniform PoolParams (Go: poolParams)
//   1 storage read  gy: array<f32>, [planes][out_h][out_w]
//   2 storage read  idx: array<f32>, the layout of gy: max_pool.wgsl's indices
//   3 storage rw    gx: array<f32>, [planes][h][w]

@group(0) @binding(0) var<uniform> params: PoolParams;
@group(0) @binding(1) var<storage, read> gy: array<f32>;
@group(0) @binding(2) var<storage, read> idx: array<f32>;
@group(0) @binding(3) var<storage, read_write> gx: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let cells = params.h * params.w;
    let windows = params.out_h * params.out_w;
    for (var i = gid.x; i < params.planes * cells; i += nwg.x * 64u) {
        let plane = i / cells;
        let cell = i % cells;
        let ih = i32(cell / params.w) + i32(params.pad_h);
        let iw = i32(cell % params.w) + i32(params.pad_w);
        var total = 0.0;
        for (var ki = i32(params.kh) - 1; ki >= 0; ki--) {
            let th = ih - ki * i32(params.dil_h); // oh*stride_h
            // % and / on u32 only, once th is known not to be negative
            // (Vulkan leaves % of a negative i32 undefined).
            if (th < 0 || u32(th) % params.stride_h != 0u || u32(th) / params.stride_h >= params.out_h) {
                continue;
            }
            let oh = u32(th) / params.stride_h;
            for (var kj = i32(params.kw) - 1; kj >= 0; kj--) {
                let tw = iw - kj * i32(params.dil_w);
                if (tw < 0 || u32(tw) % params.stride_w != 0u || u32(tw) / params.stride_w >= params.out_w) {
                    continue;
                }
                let o = plane * windows + oh * params.out_w + u32(tw) / params.stride_w;
                if (idx[o] == f32(cell)) {
                    total += gy[o];
                }
            }
        }
        gx[i] = total;
    }
}
