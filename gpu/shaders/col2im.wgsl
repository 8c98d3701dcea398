// uses: params
// col2im.wgsl: the adjoint of im2col.wgsl, without atomics: every input
// element sums the entries of the im2col-shaped gradient dcols copied from
// it, in increasing (ki, kj) and so in the order in which autograd's
// Conv2d input gradient (its CPU twin) adds them:
//   gx[n][c][ih][iw] = sum over ki, kj with ih = oh*stride_h - pad_h + ki*dil_h
//                      and iw = ow*stride_w - pad_w + kj*dil_w for some output
//                      cell (oh, ow) of dcols[((n*c_in + c)*kh*kw + ki*kw + kj)*out_h*out_w + oh*out_w + ow].
//
// Entry point: main; workgroup size 64; a grid-stride loop over the
// elements of gx.
// Bindings (group 0):
//   0 uniform ConvParams (Go: convParams)
//   1 storage read  dcols: array<f32>, the layout of im2col.wgsl's cols
//   2 storage rw    gx: array<f32>, [n][c_in][h][w]

@group(0) @binding(0) var<uniform> params: ConvParams;
@group(0) @binding(1) var<storage, read> dcols: array<f32>;
@group(0) @binding(2) var<storage, read_write> gx: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let cells = params.out_h * params.out_w;
    let taps = params.kh * params.kw;
    for (var i = gid.x; i < params.n * params.c_in * params.h * params.w; i += nwg.x * 64u) {
        let plane = i / (params.h * params.w); // n*c_in + c
        let ih = i32((i / params.w) % params.h) + i32(params.pad_h);
        let iw = i32(i % params.w) + i32(params.pad_w);
        var total = 0.0;
        for (var ki = 0u; ki < params.kh; ki++) {
            let th = ih - i32(ki * params.dil_h); // oh*stride_h
            // % and / on u32 only, once th is known not to be negative
            // (Vulkan leaves % of a negative i32 undefined).
            if (th < 0 || u32(th) % params.stride_h != 0u || u32(th) / params.stride_h >= params.out_h) {
                continue;
            }
            let oh = u32(th) / params.stride_h;
            for (var kj = 0u; kj < params.kw; kj++) {
                let tw = iw - i32(kj * params.dil_w);
                if (tw < 0 || u32(tw) % params.stride_w != 0u || u32(tw) / params.stride_w >= params.out_w) {
                    continue;
                }
                let ow = u32(tw) / params.stride_w;
                total += dcols[(plane * taps + ki * params.kw + kj) * cells + oh * params.out_w + ow];
            }
        }
        gx[i] = total;
    }
}
