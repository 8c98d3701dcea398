// lib/layout.wgsl: the index decoding of a strided block of up to six
// dimensions (strided_copy, sum_to). The kernel declares
// params: LayoutParams (Go: layoutParams): the block's dims dim0 .. dim5
// (dim0 outermost) and src's offset and strides. A kernel asks for this file
// with "// uses: layout"; the loader appends it (gpu/shaders.go).

// digits splits the block index f into its six digits, dim0 outermost.
fn digits(f: u32) -> array<u32, 6> {
    var d: array<u32, 6>;
    var rest = f;
    d[5] = rest % params.dim5;
    rest /= params.dim5;
    d[4] = rest % params.dim4;
    rest /= params.dim4;
    d[3] = rest % params.dim3;
    rest /= params.dim3;
    d[2] = rest % params.dim2;
    rest /= params.dim2;
    d[1] = rest % params.dim1;
    d[0] = rest / params.dim1;
    return d;
}

// src_offset returns where block index f lies in src.
fn src_offset(f: u32) -> u32 {
    let d = digits(f);
    return params.src_off + d[0] * params.src_stride0 + d[1] * params.src_stride1 + d[2] * params.src_stride2
        + d[3] * params.src_stride3 + d[4] * params.src_stride4 + d[5] * params.src_stride5;
}
