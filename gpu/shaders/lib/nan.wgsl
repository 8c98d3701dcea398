// lib/nan.wgsl: isNaN, for the kernels that treat NaN as the CPU does
// (max and min propagate it, a mask counts it as true). A kernel asks for
// this file with "// uses: nan"; the loader appends it (gpu/shaders.go).

// isNaN tests the bits: a compiler may fold x != x away.
fn isNaN(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}

// nanf is a quiet NaN, posInf +Inf and negInf -Inf. NOTE: bitcast<f32>(0x7fc00000u) is a
// const-expression, and one whose value is NaN or infinite is a
// shader-creation error in WGSL: Dawn's compiler (Chromium's WebGPU)
// refuses the shader, where wgpu-native's accepts it. The bits pass through
// a let, which makes the bitcast a runtime expression.
fn nanf() -> f32 {
    let bits = 0x7fc00000u;
    return bitcast<f32>(bits);
}

fn posInf() -> f32 {
    let bits = 0x7f800000u;
    return bitcast<f32>(bits);
}

fn negInf() -> f32 {
    let bits = 0xff800000u;
    return bitcast<f32>(bits);
}
