// uses: layout, params
// strided_copy.wgsl: copies a block of up to six dimensions between two
// tensors, each addressed by an offset and a stride per dimension, the
// kernel of autograd's shape ops (Permute, Transpose, Expand, Narrow, Cat,
// Stack and Pad's copy of the input, its CPU twins): for every index i of
// the block, with digits i_0 .. i_5 (dim5 innermost),
//   dst[dst_off + sum i_d*dst_stride_d] = src[src_off + sum i_d*src_stride_d].
// A broadcast dimension has source stride 0. Every element is written by
// one invocation.
//
// Entry point: main; workgroup size 64; a grid-stride loop over the n
// elements of the block.
// Bindings (group 0):
//   0 uniform LayoutParams (Go: layoutParams)
//   1 storage read  src: array<f32>
//   2 storage rw    dst: array<f32>

@group(0) @binding(0) var<uniform> params: LayoutParams;
@group(0) @binding(1) var<storage, read> src: array<f32>;
@group(0) @binding(2) var<storage, read_write> dst: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    for (var i = gid.x; i < params.n; i += nwg.x * 64u) {
        let d = digits(i);
        let o = params.dst_off + d[0] * params.dst_stride0 + d[1] * params.dst_stride1 + d[2] * params.dst_stride2
            + d[3] * params.dst_stride3 + d[4] * params.dst_stride4 + d[5] * params.dst_stride5;
        dst[o] = src[src_offset(i)];
    }
}
