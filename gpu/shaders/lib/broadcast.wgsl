// lib/broadcast.wgsl: the offsets of broadcasting, for the autograd kernels
// whose operands are views of the output's shape, strided and broadcast
// (binary, where, strided). The kernel declares params: EwParams, whose st
// holds the output's shape and the operands' strides (see dimOf). A kernel
// asks for this file with "// uses: broadcast"; the loader appends it
// (gpu/shaders.go).


// dimOf returns entry k of row row of params.st: row 0 is the output
// shape, rows 1, 2 and 3 the strides of the operands.
fn dimOf(row: u32, k: u32) -> u32 {
    return params.st[2u * row + k / 4u][k % 4u];
}

// offsetOf returns the storage offset of output element i in the operand
// whose strides are row row (0 along a broadcast axis).
fn offsetOf(i: u32, row: u32) -> u32 {
    var rem = i;
    var off = 0u;
    for (var d = i32(params.ndim) - 1; d >= 0; d--) {
        let len = dimOf(0u, u32(d));
        off += (rem % len) * dimOf(row, u32(d));
        rem /= len;
    }
    return off;
}
