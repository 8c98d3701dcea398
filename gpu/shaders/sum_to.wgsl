// uses: layout, params
// sum_to.wgsl: sums a strided tensor over some of its dimensions, as
// autograd sums the gradient of a broadcast operand (its CPU twin, sumTo,
// is autograd.Sum): dst[o] = sum over r < reduce of src[src_offset(o*reduce + r)],
// where the block index o*reduce + r has up to six digits (dim0 outermost;
// the kept dimensions first, the summed ones after) and digit d moves src
// by src_stride_d. Each output is summed by one invocation in increasing r:
// deterministic, and no atomics.
//
// Entry point: main; workgroup size 64; a grid-stride loop over the n
// outputs.
// Bindings (group 0):
//   0 uniform LayoutParams (Go: layoutParams; dst_off and dst strides unused)
//   1 storage read  src: array<f32>
//   2 storage rw    dst: array<f32>, [n]

@group(0) @binding(0) var<uniform> params: LayoutParams;
@group(0) @binding(1) var<storage, read> src: array<f32>;
@group(0) @binding(2) var<storage, read_write> dst: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    for (var o = gid.x; o < params.n; o += nwg.x * 64u) {
        var total = 0.0;
        for (var r = 0u; r < params.reduce; r++) {
            total += src[src_offset(o * params.reduce + r)];
        }
        dst[o] = total;
    }
}
