// uses: neighbour, params
// perception_gather_backward.wgsl: perception_gather.wgsl's backward pass as
// a gather (no atomics), as dlca.AddNeighbourhoodGrad (its CPU twin): each
// cell adds what the cells that see it received for it,
//   dstate[cell, c] += sum over n of dnb[(n*C + c)*cells + viewer_n]
// where viewer_n is the cell at offset -(n/3 - 1, n%3 - 1), skipped beyond a
// zero boundary; n in increasing order.
//
// Entry point: main; workgroup size 64; a grid-stride loop over the elements of dstate.
// Bindings (group 0):
//   0 uniform GridParams (Go: gridParams)
//   1 storage read  dnb:    array<f32>, [9][C][cells]
//   2 storage rw    dstate: array<f32>, [cells][C], added to

@group(0) @binding(0) var<uniform> grid: GridParams;
@group(0) @binding(1) var<storage, read> dnb: array<f32>;
@group(0) @binding(2) var<storage, read_write> dstate: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let cells = grid.batch * grid.height * grid.width;
    for (var i = gid.x; i < cells * grid.channels; i += nwg.x * 64u) {
        let c = i % grid.channels;
        let cell = i / grid.channels;
        let x = cell % grid.width;
        let y = (cell / grid.width) % grid.height;
        let b = cell / (grid.width * grid.height);
        var total = dstate[i];
        for (var n = 0u; n < 9u; n++) {
            let viewer = source(b, y, x, 1 - i32(n / 3u), 1 - i32(n % 3u));
            if (viewer >= 0) {
                total += dnb[(n * grid.channels + c) * cells + u32(viewer)];
            }
        }
        dstate[i] = total;
    }
}
