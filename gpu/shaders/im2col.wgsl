// uses: params
// im2col.wgsl: the im2col matrices of a 2-D convolution, as autograd's
// Conv2d builds them before its product (its CPU twin is autograd.Conv2d,
// through which the tests hold this kernel): for sample n, input channel c
// (group c / (c_in / groups)), kernel cell (ki, kj) and output cell
// (oh, ow),
//   cols[((n*c_in + c)*kh*kw + ki*kw + kj)*out_h*out_w + oh*out_w + ow]
//     = x[n][c][oh*stride_h - pad_h + ki*dil_h][ow*stride_w - pad_w + kj*dil_w],
// or 0 in the padding: [N][groups][c_in/groups*kh*kw][out_h*out_w], the
// right operand of one batched product per sample and group.
//
// Entry point: main; workgroup size 64; a grid-stride loop over the
// elements of cols.
// Bindings (group 0):
//   0 uniform ConvParams (Go: convParams)
//   1 storage read  x: array<f32>, [n][c_in][h][w]
//   2 storage rw    cols: array<f32>

@group(0) @binding(0) var<uniform> params: ConvParams;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> cols: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let cells = params.out_h * params.out_w;
    let taps = params.kh * params.kw;
    for (var i = gid.x; i < params.n * params.c_in * taps * cells; i += nwg.x * 64u) {
        let plane = i / (taps * cells); // n*c_in + c
        let tap = (i / cells) % taps;
        let cell = i % cells;
        let ih = i32((cell / params.out_w) * params.stride_h + (tap / params.kw) * params.dil_h) - i32(params.pad_h);
        let iw = i32((cell % params.out_w) * params.stride_w + (tap % params.kw) * params.dil_w) - i32(params.pad_w);
        var v = 0.0;
        if (ih >= 0 && ih < i32(params.h) && iw >= 0 && iw < i32(params.w)) {
            v = x[(plane * params.h + u32(ih)) * params.w + u32(iw)];
        }
        cols[i] = v;
    }
}
