// perception_gather.wgsl: every cell's 3x3 neighbourhood, channel by
// channel, feature-major as dlca.GatherNeighbourhood (its CPU twin):
//   nb[(n*C + c)*cells + cell] = state[neighbour n of cell, c]
// with neighbour n at offset (n/3 - 1, n%3 - 1) (row-major, n = 4 the cell
// itself), 0 beyond a zero boundary, wrapped around a periodic one. state is
// [batch, height, width, C], cell = (b*height + y)*width + x. The first
// perception layer reads nb as 9 features over C*cells rows.
//
// Entry point: main; workgroup size 64; a grid-stride loop over the elements of nb.
// Bindings (group 0):
//   0 uniform GridParams (Go: gridParams)
//   1 storage read  state: array<f32>, [cells][C]
//   2 storage rw    nb:    array<f32>, [9][C][cells]

struct GridParams {
    batch: u32,
    height: u32,
    width: u32,
    channels: u32,
    periodic: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> grid: GridParams;
@group(0) @binding(1) var<storage, read> state: array<f32>;
@group(0) @binding(2) var<storage, read_write> nb: array<f32>;

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

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let cells = grid.batch * grid.height * grid.width;
    for (var i = gid.x; i < cells * grid.channels * 9u; i += nwg.x * 64u) {
        let cell = i % cells;
        let c = (i / cells) % grid.channels;
        let n = i / (cells * grid.channels);
        let x = cell % grid.width;
        let y = (cell / grid.width) % grid.height;
        let b = cell / (grid.width * grid.height);
        let src = source(b, y, x, i32(n / 3u) - 1, i32(n % 3u) - 1);
        var v = 0.0;
        if (src >= 0) {
            v = state[u32(src) * grid.channels + c];
        }
        nb[i] = v;
    }
}
