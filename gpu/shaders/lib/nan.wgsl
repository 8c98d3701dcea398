// lib/nan.wgsl: isNaN, for the kernels that treat NaN as the CPU does
// (max and min propagate it, a mask counts it as true). A kernel asks for
// this file with "// uses: nan"; the loader appends it (gpu/shaders.go).

// isNaN tests the bits: a compiler may fold x != x away.
fn isNaN(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}
