// lib/neighbour.wgsl: where a cell's neighbour lies on the grid, for the
// perception kernels (perception_gather and its backward pass). The kernel
// declares grid: GridParams (Go: gridParams). A kernel asks for this file
// with "// uses: neighbour"; the loader appends it (gpu/shaders.go).

// source returns the cell at (y+dy, x+dx) of image b, or -1 outside a zero
// boundary. dy and dx are -1, 0 or 1 (|d| < side).
fn source(b: u32, y: u32, x: u32, dy: i32, dx: i32) -> i32 {
    let h = i32(grid.height);
    let w = i32(grid.width);
    var sy = i32(y) + dy;
    var sx = i32(x) + dx;
    if (grid.periodic != 0u) {
        sy = wrap(sy, h);
        sx = wrap(sx, w);
    } else if (sy < 0 || sy >= h || sx < 0 || sx >= w) {
        return -1;
    }
    return (i32(b) * h + sy) * w + sx;
}

// wrap brings s, which lies in [-side, 2*side), back into [0, side) on a
// periodic boundary, by adding or subtracting side once. It takes no %:
// WGSL's % on a negative i32 is SPIR-V's OpSRem, whose result Vulkan leaves
// undefined for a negative operand (lavapipe gave C's remainder, an NVIDIA
// H100 did not, and every periodic grid went wrong there).
fn wrap(s: i32, side: i32) -> i32 {
    if (s < 0) {
        return s + side;
    }
    if (s >= side) {
        return s - side;
    }
    return s;
}
