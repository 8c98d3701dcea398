// lib/pow.wgsl: powf, the power of autograd's Pow and PowScalar (the
// binary and unary kernels). A kernel asks for this file with
// "// uses: pow" (and ieee and nan, whose helpers it calls); the loader
// appends it (gpu/shaders.go).

// powf is math.Pow (and torch.pow) in float32. The finite non-zero bases
// take exp2(p·log2|x|), with the sign of a negative base raised to an odd
// integer; every special case of math.Pow is decided before that, because
// WGSL leaves log2 undefined at 0 (an NVIDIA GPU and lavapipe disagreed on
// 0^-1 and on the gradients of x^0.5 at 0) and may flush subnormals:
//   x^±0 = 1 and 1^p = 1 for every x and p, NaN included; x^1 = x;
//   NaN in either operand gives NaN;
//   ±0^p: p < 0 gives ±Inf for an odd integer p (the sign of the zero),
//         +Inf otherwise; p > 0 gives ±0 for an odd integer p, +0 otherwise;
//   (-1)^±Inf = 1; x^+Inf is +Inf for |x| > 1 and +0 for |x| < 1, x^-Inf
//         the other way round;
//   +Inf^p is +Inf for p > 0, +0 for p < 0; -Inf^p = (-0)^-p;
//   a finite negative base and a finite non-integer power give NaN.
fn powf(x: f32, p: f32) -> f32 {
    if (isZero(p) || x == 1.0) {
        return 1.0;
    }
    if (isNaN(x) || isNaN(p)) {
        return nanf();
    }
    if (p == 1.0) {
        return x;
    }
    let xbits = bitcast<u32>(x);
    let negative = (xbits & SIGN_BIT) != 0u;
    let mag = bitcast<f32>(xbits & 0x7fffffffu); // |x|, by its bits
    if (isInf(p)) {
        if (x == -1.0) {
            return 1.0;
        }
        if ((mag < 1.0) == (p > 0.0)) {
            return 0.0;
        }
        return posInf();
    }
    // p is finite here; whether it is an integer, and odd, is read from
    // its bits (fract of a subnormal p flushed to 0 would call it one).
    let integer = isIntegerf(p);
    let odd = isOddf(p);
    if (isZero(x) || isInf(x)) {
        // ±0^p, and ±Inf^p as (±0)^-p (math.Pow's -Inf^p = (-0)^-p).
        var q = p;
        if (isInf(x)) {
            q = -p;
        }
        var r = 0u; // +0
        if ((bitcast<u32>(q) & SIGN_BIT) != 0u) { // q < 0 (it is not 0), by its sign bit: a subnormal q may compare as 0
            r = POS_INF;
        }
        if (odd && negative) {
            r |= SIGN_BIT;
        }
        return bitcast<f32>(r);
    }
    if (negative && !integer) {
        return nanf();
    }
    let e = p * log2f(mag); // log2f: mag is finite, non-zero, maybe subnormal
    var r: f32;
    if (e >= 128.0) {
        r = posInf(); // exp2 is only specified in range
    } else if (e < -150.0) {
        r = 0.0;
    } else {
        r = exp2(e); // safe: e is finite, in [-150, 128)
    }
    if (negative && odd) {
        r = -r;
    }
    return r;
}

// isIntegerf reports whether the finite p is an integer, and isOddf
// whether it is an odd one, from its bits: p = s·2^(b-150) with s its
// 24-bit significand and b its biased exponent, so p is an integer when
// the lowest 150 - b bits of s are 0 (always from b = 150 up, never below
// 1 but for 0), and odd when the next bit is 1 (never from b = 151 up).
fn isIntegerf(p: f32) -> bool {
    let mag = bitcast<u32>(p) & 0x7fffffffu;
    let b = mag >> 23u;
    if (b < 127u) {
        return mag == 0u; // |p| < 1
    }
    if (b >= 150u) {
        return true;
    }
    let fraction = (1u << (150u - b)) - 1u; // safe: 150 - b in [1, 23]
    return (mag & fraction) == 0u;
}

fn isOddf(p: f32) -> bool {
    let mag = bitcast<u32>(p) & 0x7fffffffu;
    let b = mag >> 23u;
    if (b < 127u || b > 150u || !isIntegerf(p)) {
        return false;
    }
    let significand = (mag & 0x7fffffu) | 0x800000u;
    return ((significand >> (150u - b)) & 1u) != 0u; // safe: 150 - b in [0, 23]
}
