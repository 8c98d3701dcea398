// lib/trig.wgsl: sinf and cosf, autograd's Sin and Cos, accurate to a few
// float32 units in the last place for every finite float, on any
// conforming WGSL implementation. WGSL promises its sin and cos only to
// 2^-11 absolute on [-π, π] (SwiftShader's are 1.9e-4 off) and nothing
// beyond, and lets an implementation assume no NaN or Inf. So these reduce
// the argument themselves, exactly, by Payne and Hanek's method in integer
// arithmetic (x·2/π mod 4 from a table of 2/π's bits), and sum Cephes'
// minimax polynomials for sin and cos on [-π/4, π/4]; NaN and ±Inf give
// NaN (Go's math.Sin and math.Cos), decided by bits. A kernel asks for this
// file with "// uses: trig" (and ieee and nan, whose helpers it calls).

// TWO_OVER_PI holds the bits of 2/π after the binary point, 32 to a word,
// behind one word of zeros (the bits before the point), so that a window
// of them may start before the point. A private variable, not a const:
// some WGSL compilers (naga) refuse a const array indexed at run time.
var<private> TWO_OVER_PI: array<u32, 8> = array<u32, 8>(0x00000000u,
    0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u, 0xdb629599u, 0x3c439041u, 0xfe5163abu);

const PIO2_HI: f32 = 1.5707963705062866;    // π/2 rounded to float32
const PIO2_LO: f32 = -4.371139000186243e-8; // π/2 - PIO2_HI
const PIO4: f32 = 0.7853981633974483;
const TINY_TRIG: u32 = 0x39800000u; // the bits of 2^-12: below it sin x = x and cos x = 1 in float32

// trigReduce returns r and sets *quarter to q mod 4 where ax (finite, not
// negative) = q·π/2 + r with r in [-π/4, π/4] (a pointer rather than a
// struct: the package's structs are its uniforms). Above π/4 it takes
// y = ax·2/π mod 4 exactly enough: ax = s·2^(b-150) with s its 24-bit
// significand, so only the bits of 2/π from the (b-151)th after the point
// on contribute below 4 (earlier ones give multiples of 4); 96 of them
// times s give y with 94 bits after the point (the rest adds below 2^-70). q is y rounded to the nearest
// integer, r the rest times π/2.
fn trigReduce(ax: f32, quarter: ptr<function, u32>) -> f32 {
    if (ax <= PIO4) {
        *quarter = 0u;
        return ax;
    }
    let bits = bitcast<u32>(ax);
    let b = bits >> 23u; // 126 to 254 here
    let s = (bits & 0x7fffffu) | 0x800000u;
    // The window starts at bit b - 120 of the table (its first bit is at
    // position 32); b - 120 is 6 to 134, so the four words read are 0 to 7.
    let start = b - 120u;
    let k = start >> 5u;
    let sh = start & 31u;
    let w2 = funnel(TWO_OVER_PI[k], TWO_OVER_PI[k + 1u], sh);
    let w1 = funnel(TWO_OVER_PI[k + 1u], TWO_OVER_PI[k + 2u], sh);
    let w0 = funnel(TWO_OVER_PI[k + 2u], TWO_OVER_PI[k + 3u], sh);
    // The low 96 bits of s·(w2, w1, w0): y·2^94.
    let a0 = mulWide(w0, s);
    let a1 = mulWide(w1, s);
    let a2 = mulWide(w2, s);
    let p0 = a0.y;
    let p1 = a0.x + a1.y;
    let p2 = a1.x + a2.y + select(0u, 1u, p1 < a1.y); // the carry
    var q = p2 >> 30u;
    var f2 = p2 & 0x3fffffffu;
    var f1 = p1;
    var f0 = p0;
    let negative = (f2 & 0x20000000u) != 0u; // the fraction is at least 1/2: round q up
    if (negative) {
        q += 1u;
        // 1 - fraction: the 94-bit two's complement.
        f0 = ~f0 + 1u;
        let c0 = select(0u, 1u, p0 == 0u);
        f1 = ~f1 + c0;
        let c1 = select(0u, 1u, p0 == 0u && p1 == 0u);
        f2 = (~f2 + c1) & 0x3fffffffu;
    }
    // The fraction in [0, 1/2] as a float: three exact 24-bit pieces.
    let hi = f32(f2 >> 6u) * 5.9604644775390625e-8; // 2^-24
    let mid = f32(((f2 & 63u) << 18u) | (f1 >> 14u)) * 3.552713678800501e-15; // 2^-48
    let lo = f32(((f1 & 0x3fffu) << 10u) | (f0 >> 22u)) * 2.117582368135751e-22; // 2^-72
    let f = hi + (mid + lo);
    let r = f * PIO2_HI + f * PIO2_LO;
    *quarter = q & 3u;
    return select(r, -r, negative);
}

// funnel is the 32 bits of (a, b) that start sh bits into a.
fn funnel(a: u32, b: u32, sh: u32) -> u32 {
    if (sh == 0u) {
        return a;
    }
    return (a << sh) | (b >> (32u - sh)); // safe: sh in [1, 31]
}

// sinPoly and cosPoly are Cephes' sinf and cosf polynomials for r in
// [-π/4, π/4] (relative error about 1e-7).
fn sinPoly(r: f32) -> f32 {
    let z = r * r;
    return ((-1.9515295891e-4 * z + 8.3321608736e-3) * z - 1.6666654611e-1) * z * r + r;
}

fn cosPoly(r: f32) -> f32 {
    let z = r * r;
    return ((2.443315711809948e-5 * z - 1.388731625493765e-3) * z + 4.166664568298827e-2) * z * z - 0.5 * z + 1.0;
}

// onCircle is sin(q·π/2 + r) for q in [0, 3].
fn onCircle(q: u32, r: f32) -> f32 {
    switch q {
        case 0u: { return sinPoly(r); }
        case 1u: { return cosPoly(r); }
        case 2u: { return -sinPoly(r); }
        default: { return -cosPoly(r); }
    }
}

// sinf is math.Sin in float32.
fn sinf(x: f32) -> f32 {
    if (isNaN(x) || isInf(x)) {
        return nanf();
    }
    let bits = bitcast<u32>(x);
    if ((bits & 0x7fffffffu) < TINY_TRIG) {
        return x; // ±0 and subnormals kept, as sin x rounds to x
    }
    var q: u32;
    let r = trigReduce(abs(x), &q);
    let s = onCircle(q, r);
    return select(s, -s, (bits & SIGN_BIT) != 0u);
}

// cosf is math.Cos in float32: sin(|x| + π/2).
fn cosf(x: f32) -> f32 {
    if (isNaN(x) || isInf(x)) {
        return nanf();
    }
    let bits = bitcast<u32>(x);
    if ((bits & 0x7fffffffu) < TINY_TRIG) {
        return 1.0;
    }
    var q: u32;
    let r = trigReduce(bitcast<f32>(bits & 0x7fffffffu), &q);
    return onCircle((q + 1u) & 3u, r);
}
