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
    // p is finite here, so fract is exact (every float from 2^23 up is an
    // integer, and every one from 2^24 up even).
    let integer = fract(p) == 0.0;
    let odd = integer && fract(p * 0.5) != 0.0;
    if (isZero(x) || isInf(x)) {
        // ±0^p, and ±Inf^p as (±0)^-p (math.Pow's -Inf^p = (-0)^-p).
        var q = p;
        if (isInf(x)) {
            q = -p;
        }
        var r = 0u; // +0
        if (q < 0.0) {
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
        r = exp2(e);
    }
    if (negative && odd) {
        r = -r;
    }
    return r;
}
