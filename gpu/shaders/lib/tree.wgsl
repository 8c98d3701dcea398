// lib/tree.wgsl: a workgroup of 64 combining its invocations' partial
// results (reduce_wide.wgsl, softmax_wide.wgsl) pairwise in a fixed tree,
// so that the result does not depend on scheduling. A kernel asks for it
// with "// uses: tree" (and reduce, whose combine it calls, and nan).

var<workgroup> part: array<f32, 64>;

// combined folds every invocation's acc by op (lib/reduce.wgsl's codes) and
// returns the result to all of them. Every invocation of the workgroup must
// call it.
fn combined(lid: u32, op: u32, acc: f32) -> f32 {
    part[lid] = acc;
    workgroupBarrier();
    for (var s = 32u; s > 0u; s >>= 1u) {
        if (lid < s) {
            part[lid] = combine(op, part[lid], part[lid + s]);
        }
        workgroupBarrier();
    }
    let all = part[0];
    workgroupBarrier(); // every invocation has read it before part is reused
    return all;
}
