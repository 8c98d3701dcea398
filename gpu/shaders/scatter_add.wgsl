// uses: params
// scatter_add.wgsl: the transpose of gather.wgsl, without atomics: every
// element q of dst sums the elements of src gathered from it,
//   dst[q] = (accumulate ? dst[q] : 0) + sum over e in [start[q], start[q+1]) of src[pos[e]],
// where pos lists, for each q, the positions i with offs[i] == q in
// increasing i (a reverse index built on the host, as the gate layer's), so
// the sum runs in the order in which autograd's ScatterAdd and IndexAdd
// (its CPU twins) add, and the convolution's col2im. Each element is
// written by one invocation.
//
// Entry point: main; workgroup size 64; a grid-stride loop over the n
// elements of dst.
// Bindings (group 0):
//   0 uniform GatherParams (Go: gatherParams; fill unused)
//   1 storage read  start: array<u32>, [n + 1]
//   2 storage read  pos: array<u32>
//   3 storage read  src: array<f32>
//   4 storage rw    dst: array<f32>, [n]

@group(0) @binding(0) var<uniform> params: GatherParams;
@group(0) @binding(1) var<storage, read> start: array<u32>;
@group(0) @binding(2) var<storage, read> pos: array<u32>;
@group(0) @binding(3) var<storage, read> src: array<f32>;
@group(0) @binding(4) var<storage, read_write> dst: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    for (var q = gid.x; q < params.n; q += nwg.x * 64u) {
        var total = 0.0;
        if (params.accumulate != 0u) {
            total = dst[q];
        }
        for (var e = start[q]; e < start[q + 1u]; e++) {
            total += src[pos[e]];
        }
        dst[q] = total;
    }
}
