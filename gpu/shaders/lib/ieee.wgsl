// lib/ieee.wgsl: the IEEE special cases that WGSL and Vulkan leave undefined,
// handled explicitly so that every driver gives the CPU's (Go's math, and
// PyTorch's) values. WGSL leaves log and log2 undefined at 0 and below and
// sqrt below 0, specifies division only for |y| in [2^-126, 2^126], lets
// an implementation flush subnormal operands to zero and assume that no
// Inf or NaN occurs. So these helpers classify their operands by their bits
// (a flushed or folded float comparison cannot fool them), return the
// special results as bit patterns, and call the builtin only inside its
// domain. A kernel asks for this file with "// uses: ieee" (and nan, whose
// isNaN it calls).

const POS_INF: u32 = 0x7f800000u;
const NEG_INF: u32 = 0xff800000u;
const QUIET_NAN: u32 = 0x7fc00000u;
const SIGN_BIT: u32 = 0x80000000u;
const MIN_NORMAL: u32 = 0x00800000u; // the bits of 2^-126

// isInf reports whether x is +Inf or -Inf.
fn isInf(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) == POS_INF;
}

// isZero reports whether x is +0 or -0 (a subnormal is not).
fn isZero(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) == 0u;
}

// log2f is log2 as math.Log2: -Inf at ±0, NaN below 0 and at NaN, +Inf at
// +Inf, and subnormal inputs (which a GPU may flush to 0) from their bits.
fn log2f(x: f32) -> f32 {
    let bits = bitcast<u32>(x);
    if (isNaN(x) || (bits > SIGN_BIT)) {
        return nanf(); // NaN, or below 0 (not -0)
    }
    if (isZero(x)) {
        return negInf();
    }
    if (bits == POS_INF) {
        return x;
    }
    if (bits < MIN_NORMAL) {
        // x = bits * 2^-149 exactly, and f32(bits) < 2^23 is exact.
        return log2(f32(bits)) - 149.0; // safe: f32(bits) >= 1
    }
    return log2(x); // safe: x is a positive finite normal number
}

// lnf is the natural logarithm with log2f's special values.
fn lnf(x: f32) -> f32 {
    let bits = bitcast<u32>(x);
    if (bits >= MIN_NORMAL && bits < POS_INF) {
        return log(x); // safe: x is a positive finite normal number
    }
    return log2f(x) * 0.6931471805599453;
}

// sqrtf is sqrt as math.Sqrt: ±0 at ±0 (the sign kept), NaN below 0 and at
// NaN, +Inf at +Inf, and subnormal inputs from their bits.
fn sqrtf(x: f32) -> f32 {
    let bits = bitcast<u32>(x);
    if (isZero(x) || bits == POS_INF) {
        return x;
    }
    if (isNaN(x) || bits > SIGN_BIT) {
        return nanf();
    }
    if (bits < MIN_NORMAL) {
        // sqrt(bits * 2^-149) = sqrt(2 * bits) * 2^-75, all normal.
        return sqrt(2.0 * f32(bits)) * 2.6469779601696886e-23; // safe: 2*bits >= 2
    }
    return sqrt(x); // safe: x is a positive finite normal number
}

// divf is x / y with IEEE's rules where WGSL gives none: ±Inf (the sign
// of x times that of y) for a non-zero x over ±0, NaN for 0/0, for NaN and
// for Inf/Inf, a signed 0 for a finite x over ±Inf. WGSL's division is
// exact to 2.5 ULP only for |y| in [2^-126, 2^126] and a GPU may flush a
// subnormal operand to 0, so a subnormal operand is rescaled from its bits
// and a |y| above 2^126 divided by 4 first, the power of two put back
// after the division.
fn divf(x: f32, y: f32) -> f32 {
    let sign = (bitcast<u32>(x) ^ bitcast<u32>(y)) & SIGN_BIT;
    if (isNaN(x) || isNaN(y) || (isZero(x) && isZero(y)) || (isInf(x) && isInf(y))) {
        return nanf();
    }
    if (isZero(y) || isInf(x)) {
        return bitcast<f32>(POS_INF | sign);
    }
    if (isInf(y) || isZero(x)) {
        return bitcast<f32>(sign); // a signed 0
    }
    // x / y = (xv / yv)·2^e with xv and yv normal, yv at most 2^126, and
    // xv at least 2^-62, so that the quotient is not subnormal where the
    // result is not (a tiny x over a subnormal y).
    var xv = unflushed(x);
    var yv = unflushed(y);
    var e = subnormalExp(x) - subnormalExp(y);
    if (abs(yv) > 8.507059173023462e37) { // 2^126
        yv *= 0.25;
        e -= 2;
    }
    if (abs(xv) < 2.168404344971009e-19) { // 2^-62
        xv *= 1.8446744073709552e19; // 2^64, exact
        e -= 64;
    }
    return scaled(xv / yv, e); // safe: |yv| in [2^-126, 2^126]
}

// unflushed is a subnormal x times 2^149, exact and normal, from its bits
// (its magnitude's bits are an integer below 2^23, which f32 holds
// exactly); any other x is itself.
fn unflushed(x: f32) -> f32 {
    let bits = bitcast<u32>(x);
    let mag = bits & 0x7fffffffu;
    if (mag != 0u && mag < MIN_NORMAL) {
        return bitcast<f32>(bitcast<u32>(f32(mag)) | (bits & SIGN_BIT));
    }
    return x;
}

// subnormalExp is the power of two that unflushed took out of x: -149 for
// a subnormal x, else 0.
fn subnormalExp(x: f32) -> i32 {
    let mag = bitcast<u32>(x) & 0x7fffffffu;
    return select(0, -149, mag != 0u && mag < MIN_NORMAL);
}

// scaled is v·2^e for e in [-252, 252], by two multiplications by exact powers of
// two (each factor a normal number; overflow gives Inf as IEEE's product).
fn scaled(v: f32, e: i32) -> f32 {
    let h = e >> 1u; // floor(e / 2), an arithmetic shift (defined for a negative e, unlike %)
    return v * pow2(h) * pow2(e - h);
}

// pow2 is 2^k for k in [-126, 127], built from its bits.
fn pow2(k: i32) -> f32 {
    return bitcast<f32>(u32(k + 127) << 23u); // safe: k + 127 in [1, 254], shift below 32
}
