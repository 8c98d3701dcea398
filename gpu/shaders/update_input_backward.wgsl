// update_input_backward.wgsl: update_input.wgsl's backward pass. The own part
// of duin is added to dstate, the perception part is written to dpercep in
// percep's layout. Every output element has exactly one writer.
//
// Entry point: main; workgroup size 64; a grid-stride loop over the elements of duin.
// Bindings (group 0):
//   0 uniform ConcatParams (Go: concatParams)
//   1 storage read  duin:    array<f32>, [cells][C*(1 + K*S)]
//   2 storage rw    dstate:  array<f32>, [cells][C], added to
//   3 storage rw    dpercep: array<f32>, [cells][C][K][S], overwritten

struct ConcatParams {
    cells: u32,
    channels: u32,
    kernels: u32,
    bits: u32,
}

@group(0) @binding(0) var<uniform> p: ConcatParams;
@group(0) @binding(1) var<storage, read> duin: array<f32>;
@group(0) @binding(2) var<storage, read_write> dstate: array<f32>;
@group(0) @binding(3) var<storage, read_write> dpercep: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let ks = p.kernels * p.bits;
    let width = p.channels * (1u + ks);
    for (var i = gid.x; i < p.cells * width; i += nwg.x * 64u) {
        let cell = i / width;
        let col = i % width;
        if (col < p.channels) {
            dstate[cell * p.channels + col] += duin[i];
            continue;
        }
        let q = col - p.channels;
        let k = q % p.kernels;
        let s = (q / p.kernels) % p.bits;
        let c = q / ks;
        dpercep[((cell * p.channels + c) * p.kernels + k) * p.bits + s] = duin[i];
    }
}
