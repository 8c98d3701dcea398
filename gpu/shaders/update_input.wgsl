// update_input.wgsl: the update network's input, the concatenation of each
// cell's own state with its perception bits in dlca's (notebook) order:
//   uin[cell, c']               = state[cell, c']          for c' < C
//   uin[cell, C + (c*S + s)*K + k] = percep[cell, c, k, s]
// percep is the last perception layer's output [cells*C, K, S].
//
// Entry point: main; workgroup size 64; a grid-stride loop over the elements of uin.
// Bindings (group 0):
//   0 uniform ConcatParams (Go: concatParams)
//   1 storage read  state:  array<f32>, [cells][C]
//   2 storage read  percep: array<f32>, [cells][C][K][S]
//   3 storage rw    uin:    array<f32>, [cells][C*(1 + K*S)]

struct ConcatParams {
    cells: u32,
    channels: u32,
    kernels: u32,
    bits: u32,
}

@group(0) @binding(0) var<uniform> p: ConcatParams;
@group(0) @binding(1) var<storage, read> state: array<f32>;
@group(0) @binding(2) var<storage, read> percep: array<f32>;
@group(0) @binding(3) var<storage, read_write> uin: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let ks = p.kernels * p.bits;
    let width = p.channels * (1u + ks);
    for (var i = gid.x; i < p.cells * width; i += nwg.x * 64u) {
        let cell = i / width;
        let col = i % width;
        if (col < p.channels) {
            uin[i] = state[cell * p.channels + col];
            continue;
        }
        let q = col - p.channels; // (c*S + s)*K + k
        let k = q % p.kernels;
        let s = (q / p.kernels) % p.bits;
        let c = q / ks;
        uin[i] = percep[((cell * p.channels + c) * p.kernels + k) * p.bits + s];
    }
}
