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

// isSubnormal reports whether x is a subnormal number (not 0), by its
// bits: a GPU may flush it to 0 in any arithmetic or comparison.
fn isSubnormal(x: f32) -> bool {
    let mag = bitcast<u32>(x) & 0x7fffffffu;
    return mag != 0u && mag < MIN_NORMAL;
}

// orderKey is x's bits mapped to an unsigned integer that orders as the
// floats do, -0 and +0 to one key (x is not NaN): comparisons by it
// cannot be fooled by a flushed subnormal operand (WGSL lets a GPU
// compare -1e-40 as -0, equal to 1e-40 flushed to +0).
fn orderKey(x: f32) -> u32 {
    let bits = bitcast<u32>(x);
    if ((bits & 0x7fffffffu) == 0u) {
        return SIGN_BIT; // ±0
    }
    if ((bits & SIGN_BIT) != 0u) {
        return ~bits; // negative: the larger the magnitude, the smaller the key
    }
    return bits | SIGN_BIT;
}

// lessf is x < y and lessEqf x <= y, as IEEE's (false where either is
// NaN), and equalf x == y, with subnormals taken at their value.
fn lessf(x: f32, y: f32) -> bool {
    return !isNaN(x) && !isNaN(y) && orderKey(x) < orderKey(y);
}

fn lessEqf(x: f32, y: f32) -> bool {
    return !isNaN(x) && !isNaN(y) && orderKey(x) <= orderKey(y);
}

fn equalf(x: f32, y: f32) -> bool {
    return !isNaN(x) && !isNaN(y) && orderKey(x) == orderKey(y);
}

// expf is e^x as math.Exp: NaN at NaN, +Inf at +Inf and past ln(2^128),
// +0 at -Inf and below ln(2^-150), decided by bits and comparisons of
// finite numbers, because WGSL lets an implementation assume that no NaN
// or Inf reaches its exp (SwiftShader's exp(NaN) is +Inf). Results below
// 2^-126 may be flushed to 0.
fn expf(x: f32) -> f32 {
    if (isNaN(x)) {
        return x;
    }
    if (isInf(x)) {
        return select(0.0, x, x > 0.0);
    }
    if (x > 88.72284) {
        return posInf();
    }
    if (x < -103.97209) {
        return 0.0;
    }
    return exp(x); // safe: x is finite and its exponential in float32's range
}

// mulf is x * y as IEEE's product, subnormal operands and results
// included: WGSL lets a GPU flush a subnormal operand or result to 0
// (SwiftShader does), which turns Inf·1e-40 into NaN and a gradient
// divided by x·ln 2 at x = -1e-40 into Inf. The special values are
// decided by bits; a product of normal numbers that is normal is the
// hardware's; any other is formed from the integer significands and
// rounded once, to nearest even.
fn mulf(x: f32, y: f32) -> f32 {
    let sign = (bitcast<u32>(x) ^ bitcast<u32>(y)) & SIGN_BIT;
    if (isNaN(x) || isNaN(y)) {
        return nanf();
    }
    if (isInf(x) || isInf(y)) {
        if (isZero(x) || isZero(y)) {
            return nanf();
        }
        return bitcast<f32>(POS_INF | sign);
    }
    if (isZero(x) || isZero(y)) {
        return bitcast<f32>(sign);
    }
    if (!isSubnormal(x) && !isSubnormal(y)) {
        let p = x * y;
        if ((bitcast<u32>(p) & 0x7fffffffu) >= MIN_NORMAL) {
            return p; // normal or overflowed to ±Inf: correctly rounded
        }
    }
    return bitcast<f32>(sign | tinyProduct(bitcast<u32>(x) & 0x7fffffffu, bitcast<u32>(y) & 0x7fffffffu));
}

// tinyProduct is the bits of the product of two finite non-zero
// magnitudes (given by their bits) that has a subnormal factor or is below
// 2^-126: the 48-bit product of the significands, scaled by the
// exponents and rounded to nearest even once (roundedBits).
fn tinyProduct(xm: u32, ym: u32) -> u32 {
    // A magnitude is s·2^(b-150) with s its significand (the hidden bit
    // where normal) and b its biased exponent (1 for a subnormal), so the
    // product is sx·sy·2^(e-149) with e = bx + by - 151: sx·sy·2^e units of
    // the smallest subnormal, 2^-149.
    let bx = select(xm >> 23u, 1u, xm < MIN_NORMAL);
    let by = select(ym >> 23u, 1u, ym < MIN_NORMAL);
    let sx = (xm & 0x7fffffu) | select(0x800000u, 0u, xm < MIN_NORMAL);
    let sy = (ym & 0x7fffffu) | select(0x800000u, 0u, ym < MIN_NORMAL);
    return roundedBits(mulWide(sx, sy), i32(bx + by) - 151);
}

// roundedBits is the bits of the positive number p·2^-149·2^e, p an integer
// below 2^48 held as (high word, low word), rounded to nearest even once:
// normal or subnormal, +Inf past the largest float.
fn roundedBits(p: vec2<u32>, e: i32) -> u32 {
    if (p.x == 0u && p.y == 0u) {
        return 0u;
    }
    var lead = 31 - i32(countLeadingZeros(p.y)); // safe: the leading bit's position in p, from a count of at most 32
    if (p.x != 0u) {
        lead = 63 - i32(countLeadingZeros(p.x)); // safe: a count of at most 32
    }
    // Keep 24 bits (shift right by lead - 23), or fewer where the result is
    // subnormal (shift by -e, so that the result is in units of 2^-149);
    // then the exponent field is s + e and the significand q with its
    // hidden bit, which carries into the exponent where rounding reaches
    // the next power of two.
    var s = lead - 23;
    if (s < -e) {
        s = -e;
    }
    if (s + e >= 255) {
        return POS_INF;
    }
    if (s >= 49) {
        return 0u; // below half the smallest subnormal
    }
    var q: u32;
    if (s <= 0) {
        q = p.y << u32(-s); // safe: -s <= 23, and p < 2^24 here (exact)
    } else {
        q = shiftRightRounded(p, u32(s));
    }
    // A normal q in [2^23, 2^24] encodes its hidden bit as 1 in the
    // exponent field (the field is s + e + 1); a subnormal's field is 0.
    let bits = (u32(s + e) << 23u) + q; // safe: s + e in [0, 254], a literal shift
    return select(bits, POS_INF, bits >= POS_INF);
}

// shiftRightRounded is p >> s rounded to nearest even, for s in [1, 48]
// and a result below 2^32.
fn shiftRightRounded(p: vec2<u32>, s: u32) -> u32 {
    var q: u32;
    var half: bool;  // the first bit shifted out
    var sticky: bool; // any bit below it
    if (s < 32u) {
        q = (p.x << (32u - s)) | (p.y >> s); // safe: s and 32 - s in [1, 31]
        half = ((p.y >> (s - 1u)) & 1u) != 0u; // safe: s - 1 in [0, 30]
        sticky = (p.y & ((1u << (s - 1u)) - 1u)) != 0u; // safe: s - 1 in [0, 30]
    } else if (s == 32u) {
        q = p.x;
        half = (p.y >> 31u) != 0u;
        sticky = (p.y & 0x7fffffffu) != 0u;
    } else {
        q = p.x >> (s - 32u); // safe: s - 32 in [1, 16]
        half = ((p.x >> (s - 33u)) & 1u) != 0u; // safe: s - 33 in [0, 15]
        sticky = p.y != 0u || (p.x & ((1u << (s - 33u)) - 1u)) != 0u; // safe: s - 33 in [0, 15]
    }
    if (half && (sticky || (q & 1u) != 0u)) {
        q += 1u;
    }
    return q;
}

// mulWide is the 64-bit product of a and b as (high word, low word), from
// 16-bit halves (WGSL has no 64-bit integers).
fn mulWide(a: u32, b: u32) -> vec2<u32> {
    let al = a & 0xffffu;
    let ah = a >> 16u;
    let bl = b & 0xffffu;
    let bh = b >> 16u;
    let lo = al * bl;
    let m1 = ah * bl;
    let m2 = al * bh;
    let mid = (lo >> 16u) + (m1 & 0xffffu) + (m2 & 0xffffu); // below 3·2^16
    let hi = ah * bh + (m1 >> 16u) + (m2 >> 16u) + (mid >> 16u);
    return vec2<u32>(hi, a * b); // u32 products wrap: the low word
}
