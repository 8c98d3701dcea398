// uses: broadcast, ieee, nan, params, pow
// autograd/binary.wgsl: out[i] = op(a, b), the elementwise functions of two
// operands (autograd.BinaryOps: arithmetic, Pow, Maximum and Minimum,
// comparisons, and the masks of their gradients), both operands broadcast to
// the output's shape. Mul takes subnormal operands and results at their
// value (mulf), and the comparisons, Maximum, Minimum and the gradient
// masks compare by bits (lessf, lessEqf, equalf in lib/ieee.wgsl), so that
// a GPU that flushes subnormals gives the CPU's answers. The op codes are the OP_ constants: each op's index
// in autograd.BinaryOps, the one table (TestOpCodesMirrorWGSL checks them).
//
// Entry point: main; workgroup size 64; a grid-stride loop over the elements.
// Bindings (group 0):
//   0 uniform EwParams (Go: ewParams); n, ndim, op, st: output shape, then
//     the strides of a and b
//   1 storage rw out: array<f32>, [n]
//   2 storage read a: array<f32>
//   3 storage read b: array<f32>

@group(0) @binding(0) var<uniform> params: EwParams;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> a: array<f32>;
@group(0) @binding(3) var<storage, read> b: array<f32>;

const OP_Add: u32 = 0u;
const OP_Sub: u32 = 1u;
const OP_Mul: u32 = 2u;
const OP_Div: u32 = 3u;
const OP_Pow: u32 = 4u;
const OP_Maximum: u32 = 5u;
const OP_Minimum: u32 = 6u;
const OP_Gt: u32 = 7u;
const OP_Ge: u32 = 8u;
const OP_Lt: u32 = 9u;
const OP_Le: u32 = 10u;
const OP_Eq: u32 = 11u;
const OP_MaximumShare: u32 = 12u;
const OP_MinimumShare: u32 = 13u;
const OP_ExtremeMask: u32 = 14u;

fn truth(c: bool) -> f32 {
    return select(0.0, 1.0, c);
}

fn binary(op: u32, x: f32, y: f32) -> f32 {
    switch op {
        case OP_Add: { return x + y; }
        case OP_Sub: { return x - y; }
        case OP_Mul: { return mulf(x, y); }
        case OP_Div: { return divf(x, y); }
        case OP_Pow: { return powf(x, y); }
        case OP_Maximum: { return select(y, x, lessEqf(y, x) || isNaN(x)); }
        case OP_Minimum: { return select(y, x, lessEqf(x, y) || isNaN(x)); }
        case OP_Gt: { return truth(lessf(y, x)); }
        case OP_Ge: { return truth(lessEqf(y, x)); }
        case OP_Lt: { return truth(lessf(x, y)); }
        case OP_Le: { return truth(lessEqf(x, y)); }
        case OP_Eq: { return truth(equalf(x, y)); }
        // The share of Maximum's gradient that goes to x: half on a tie,
        // none where y wins, all of it where x wins or either is NaN.
        case OP_MaximumShare: {
            if (equalf(x, y)) { return 0.5; }
            return truth(!lessf(x, y)); // x wins, or either is NaN
        }
        case OP_MinimumShare: {
            if (equalf(x, y)) { return 0.5; }
            return truth(!lessf(y, x));
        }
        case OP_ExtremeMask: { return truth(equalf(x, y) || (isNaN(x) && isNaN(y))); }
        default: { return nanf(); }
    }
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    for (var i = gid.x; i < params.n; i += nwg.x * 64u) {
        out[i] = binary(params.op, a[offsetOf(i, 1u)], b[offsetOf(i, 2u)]);
    }
}
