// lib/reduce.wgsl: the reductions' op codes (reduceCodes in Go, held to
// these by TestOpCodesMirrorWGSL) and how one value folds into a running
// result, for autograd/reduce.wgsl and autograd/reduce_wide.wgsl. A kernel
// asks for it with "// uses: reduce" (and ieee and nan, which combine calls).

const OP_Sum: u32 = 0u;
const OP_Max: u32 = 1u;
const OP_Min: u32 = 2u;

// combine folds v into acc by the op: a sum, or the larger (smaller) of the
// two, where a NaN wins as on the CPU, compared by bits (lessf) so that a
// GPU that flushes subnormals still orders them.
fn combine(op: u32, acc: f32, v: f32) -> f32 {
    switch op {
        case OP_Sum: { return acc + v; }
        case OP_Max: { return select(acc, v, lessf(acc, v) || isNaN(v)); }
        default: { return select(acc, v, lessf(v, acc) || isNaN(v)); }
    }
}
