// uses: ieee, nan, params, pow, trig
// autograd/unary.wgsl: out[i] = op(x[i]), the elementwise functions of one
// operand (autograd.UnaryOps) with their constants p0 and p1 (AddScalar's
// s, Clamp's lo and hi, ...). The op codes are the OP_ constants: each op's
// index in autograd.UnaryOps, the one table (TestOpCodesMirrorWGSL checks
// them). Special values follow the CPU: NaN propagates, Relu
// and Clamp keep it, Sign keeps 0 and NaN, Round rounds half to even.
// Log, Log2, Log10, Sqrt, DivScalar and PowScalar decide 0, -0, negative,
// subnormal and infinite inputs explicitly (lib/ieee.wgsl, lib/pow.wgsl),
// where WGSL leaves the builtins undefined or lets a GPU flush. Exp, Sin
// and Cos classify NaN and Inf by their bits (expf, lib/trig.wgsl's sinf and
// cosf, which reduce the argument and sum a polynomial themselves, as WGSL's
// sin and cos promise only 2^-11), the multiplications (MulScalar, Square,
// LeakyRelu) take subnormal operands and results at their value (mulf), and
// comparisons and Sign, Abs, Floor, Ceil, Round and Trunc read subnormals
// from their bits, so a GPU that flushes them gives the CPU's values.
//
// Entry point: main; workgroup size 64; a grid-stride loop over the elements.
// Bindings (group 0):
//   0 uniform EwParams (Go: ewParams); n, op, p0, p1
//   1 storage rw out: array<f32>, [n]
//   2 storage read x: array<f32>, [n]

@group(0) @binding(0) var<uniform> params: EwParams;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> x: array<f32>;

const OP_Copy: u32 = 0u;
const OP_Abs: u32 = 1u;
const OP_Sign: u32 = 2u;
const OP_Exp: u32 = 3u;
const OP_Log: u32 = 4u;
const OP_Log2: u32 = 5u;
const OP_Log10: u32 = 6u;
const OP_Sqrt: u32 = 7u;
const OP_Sin: u32 = 8u;
const OP_Cos: u32 = 9u;
const OP_Tanh: u32 = 10u;
const OP_Sigmoid: u32 = 11u;
const OP_Relu: u32 = 12u;
const OP_Gelu: u32 = 13u;
const OP_GeluTanh: u32 = 14u;
const OP_Silu: u32 = 15u;
const OP_Softplus: u32 = 16u;
const OP_Floor: u32 = 17u;
const OP_Ceil: u32 = 18u;
const OP_Round: u32 = 19u;
const OP_Trunc: u32 = 20u;
const OP_NormCDF: u32 = 21u;
const OP_Square: u32 = 22u;
const OP_FiniteOrZero: u32 = 23u;
const OP_AddScalar: u32 = 24u;
const OP_MulScalar: u32 = 25u;
const OP_DivScalar: u32 = 26u;
const OP_PowScalar: u32 = 27u;
const OP_LeakyRelu: u32 = 28u;
const OP_Clamp: u32 = 29u;

const LN10: f32 = 2.302585092994046;
const SQRT_2_OVER_PI: f32 = 0.7978845608028654;
const GELU_COEFF: f32 = 0.044715;

// tanhf is tanh, exact at ±Inf (tanh through exponentials overflows there).
fn tanhf(v: f32) -> f32 {
    if (isNaN(v)) {
        return v;
    }
    if (isInf(v) || abs(v) > 20.0) {
        return select(1.0, -1.0, (bitcast<u32>(v) & SIGN_BIT) != 0u);
    }
    return tanh(v); // safe: v is finite, |v| <= 20
}

// sigmoid is 1/(1+e^-v) without overflow for any v.
fn sigmoid(v: f32) -> f32 {
    if ((bitcast<u32>(v) & SIGN_BIT) == 0u) { // v >= 0 (or NaN, which expf keeps)
        return 1.0 / (1.0 + expf(-v));
    }
    let e = expf(v);
    return e / (1.0 + e);
}

// normCDF is Φ(v) = erfc(-v/√2)/2, erfc by Numerical Recipes' erfcc
// (Chebyshev fit, relative error below 1.2e-7 everywhere).
fn normCDF(v: f32) -> f32 {
    let z = -v * 0.7071067811865476;
    let az = abs(z);
    let t = divf(1.0, 1.0 + 0.5 * az); // az may be +Inf, where WGSL's division is undefined
    let r = t * expf(-az * az - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 +
        t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 +
        t * (-0.82215223 + t * 0.17087277)))))))));
    if ((bitcast<u32>(z) & SIGN_BIT) == 0u) { // z >= 0
        return 0.5 * r;
    }
    return 0.5 * (2.0 - r);
}

// clampf is min(max(v, lo), hi) as Go's and torch.clamp: NaN stays NaN,
// and hi wins where lo > hi. Comparisons, not WGSL's min and max, which may
// drop a NaN operand.
fn clampf(v: f32, lo: f32, hi: f32) -> f32 {
    var r = v;
    if (lessf(r, lo)) {
        r = lo;
    }
    if (lessf(hi, r)) {
        r = hi;
    }
    return r;
}

fn relu(v: f32) -> f32 {
    return select(0.0, v, positive(v) || isNaN(v));
}

// positive reports whether v > 0, by its bits (a positive subnormal is).
fn positive(v: f32) -> bool {
    return (bitcast<u32>(v) & SIGN_BIT) == 0u && !isZero(v) && !isNaN(v);
}

// signf is Sign: ±1 by the sign bit, 0 and NaN kept.
fn signf(v: f32) -> f32 {
    if (isZero(v) || isNaN(v)) {
        return v;
    }
    return select(1.0, -1.0, (bitcast<u32>(v) & SIGN_BIT) != 0u);
}

// rounded is Floor, Ceil, Round or Trunc of v; a subnormal v, which a GPU
// may flush to ±0 first, is decided by its bits: floor(-1e-40) is -1 and
// ceil(1e-40) 1, as on the CPU.
fn rounded(op: u32, v: f32) -> f32 {
    if (isSubnormal(v)) {
        let negative = (bitcast<u32>(v) & SIGN_BIT) != 0u;
        let zero = bitcast<f32>(bitcast<u32>(v) & SIGN_BIT); // ±0 with v's sign
        if (op == OP_Floor && negative) {
            return -1.0;
        }
        if (op == OP_Ceil && !negative) {
            return 1.0;
        }
        return zero;
    }
    switch op {
        case OP_Floor: { return floor(v); }
        case OP_Ceil: { return ceil(v); }
        case OP_Round: { return round(v); }
        default: { return trunc(v); }
    }
}

fn unary(op: u32, v: f32, p0: f32, p1: f32) -> f32 {
    switch op {
        case OP_Copy: { return v; }
        case OP_Abs: { return bitcast<f32>(bitcast<u32>(v) & 0x7fffffffu); }
        case OP_Sign: { return signf(v); }
        case OP_Exp: { return expf(v); }
        case OP_Log: { return lnf(v); }
        case OP_Log2: { return log2f(v); }
        case OP_Log10: { return lnf(v) / LN10; }
        case OP_Sqrt: { return sqrtf(v); }
        case OP_Sin: { return sinf(v); }
        case OP_Cos: { return cosf(v); }
        case OP_Tanh: { return tanhf(v); }
        case OP_Sigmoid: { return sigmoid(v); }
        case OP_Relu: { return relu(v); }
        case OP_Gelu: { return v * normCDF(v); }
        case OP_GeluTanh: { return 0.5 * v * (1.0 + tanhf(SQRT_2_OVER_PI * (v + GELU_COEFF * v * v * v))); }
        case OP_Silu: { return v * sigmoid(v); }
        case OP_Softplus: { return relu(v) + lnf(1.0 + expf(-abs(v))); }
        case OP_Floor, OP_Ceil, OP_Round, OP_Trunc: { return rounded(op, v); }
        case OP_NormCDF: { return normCDF(v); }
        case OP_Square: { return mulf(v, v); }
        case OP_FiniteOrZero: { return select(v, 0.0, isInf(v)); }
        case OP_AddScalar: { return v + p0; }
        case OP_MulScalar: { return mulf(v, p0); }
        case OP_DivScalar: { return divf(v, p0); }
        case OP_PowScalar: { return powf(v, p0); }
        case OP_LeakyRelu: { return select(mulf(p0, v), v, positive(v)); }
        case OP_Clamp: { return clampf(v, p0, p1); }
        default: { return nanf(); }
    }
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    for (var i = gid.x; i < params.n; i += nwg.x * 64u) {
        out[i] = unary(params.op, x[i], params.p0, params.p1);
    }
}
