// uses: neighbour, params
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

@group(0) @binding(0) var<uniform> grid: GridParams;
@group(0) @binding(1) var<storage, read> state: array<f32>;
@group(0) @binding(2) var<storage, read_write> nb: array<f32>;

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
