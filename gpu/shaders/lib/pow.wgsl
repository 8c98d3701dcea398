// lib/pow.wgsl: powf, the power of autograd's Pow and PowScalar (the
// binary and unary kernels). A kernel asks for this file with
// "// uses: pow"; the loader appends it (gpu/shaders.go).

// powf is math.Pow in float32: exp2(p·log2|x|), with the sign of a
// negative base raised to an odd integer, NaN for a negative base and a
// fractional power, and x⁰ = 1ˣ = 1 for every x.
fn powf(x: f32, p: f32) -> f32 {
    if (p == 0.0 || x == 1.0) {
        return 1.0;
    }
    var r = exp2(p * log2(abs(x)));
    if (x < 0.0) {
        if (fract(p) != 0.0) {
            return nanf();
        }
        if (fract(p * 0.5) != 0.0) {
            r = -r;
        }
    }
    return r;
}
