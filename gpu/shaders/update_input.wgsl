// uses: params
// update_input.wgsl: the update network's input, feature-major, as
// dlca.AssembleUpdateInput (its CPU twin): each cell's own state, then its
// perception bits in dlca's (notebook) order,
//   uin[c'][cell]                 = state[cell, c']          for c' < C
//   uin[C + (c*S + s)*K + k][cell] = percep[k*S + s][c*cells + cell]
// percep is the last perception layer's output: K groups of S gates over
// rows (channel, cell).
//
// Entry point: main; workgroup size 64; a grid-stride loop over the elements of uin.
// Bindings (group 0):
//   0 uniform ConcatParams (Go: concatParams)
//   1 storage read  state:  array<f32>, [cells][C]
//   2 storage read  percep: array<f32>, [K*S][C][cells]
//   3 storage rw    uin:    array<f32>, [C*(1 + K*S)][cells]

@group(0) @binding(0) var<uniform> p: ConcatParams;
@group(0) @binding(1) var<storage, read> state: array<f32>;
@group(0) @binding(2) var<storage, read> percep: array<f32>;
@group(0) @binding(3) var<storage, read_write> uin: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let ks = p.kernels * p.bits;
    let width = p.channels * (1u + ks);
    for (var i = gid.x; i < width * p.cells; i += nwg.x * 64u) {
        let f = i / p.cells;
        let cell = i % p.cells;
        if (f < p.channels) {
            uin[i] = state[cell * p.channels + f];
            continue;
        }
        let q = f - p.channels; // (c*S + s)*K + k
        let k = q % p.kernels;
        let s = (q / p.kernels) % p.bits;
        let c = q / ks;
        uin[i] = percep[((k * p.bits + s) * p.channels + c) * p.cells + cell];
    }
}
