// uses: params
// gather.wgsl: dst[i] = src[offs[i]], or fill where offs[i] is 0xffffffff
// (a cell outside the source: convolution padding, Pad's value). The
// kernel of autograd's IndexSelect, Gather, PadWith and the convolutions'
// im2col (its CPU twins), whose offsets the host computes once per shape.
//
// Entry point: main; workgroup size 64; a grid-stride loop over the n
// elements of dst.
// Bindings (group 0):
//   0 uniform GatherParams (Go: gatherParams)
//   1 storage read  offs: array<u32>, [n]
//   2 storage read  src: array<f32>
//   3 storage rw    dst: array<f32>, [n]

@group(0) @binding(0) var<uniform> params: GatherParams;
@group(0) @binding(1) var<storage, read> offs: array<u32>;
@group(0) @binding(2) var<storage, read> src: array<f32>;
@group(0) @binding(3) var<storage, read_write> dst: array<f32>;

const OUTSIDE: u32 = 0xffffffffu;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    for (var i = gid.x; i < params.n; i += nwg.x * 64u) {
        var v = params.fill;
        if (offs[i] != OUTSIDE) {
            v = src[offs[i]];
        }
        dst[i] = v;
    }
}
