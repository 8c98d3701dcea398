// lib/neighbour.wgsl: where a cell's neighbour lies on the grid, for the
// perception kernels (perception_gather and its backward pass). The kernel
// declares grid: GridParams (Go: gridParams). A kernel asks for this file
// with "// uses: neighbour"; the loader appends it (gpu/shaders.go).

// source returns the cell at (y+dy, x+dx) of image b, or -1 outside a zero
// boundary.
fn source(b: u32, y: u32, x: u32, dy: i32, dx: i32) -> i32 {
    let h = i32(grid.height);
    let w = i32(grid.width);
    var sy = i32(y) + dy;
    var sx = i32(x) + dx;
    if (grid.periodic != 0u) {
        sy = (sy % h + h) % h;
        sx = (sx % w + w) % w;
    } else if (sy < 0 || sy >= h || sx < 0 || sx >= w) {
        return -1;
    }
    return (i32(b) * h + sy) * w + sx;
}
