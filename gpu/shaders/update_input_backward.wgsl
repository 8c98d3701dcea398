// uses: params
// update_input_backward.wgsl: update_input.wgsl's backward pass, as
// dlca.SplitUpdateInputGrad (its CPU twin). The own part of duin is added to
// dstate, the perception part is written to dpercep in percep's layout.
// Every output element has exactly one writer.
//
// Entry point: main; workgroup size 64; a grid-stride loop over the elements of duin.
// Bindings (group 0):
//   0 uniform ConcatParams (Go: concatParams)
//   1 storage read  duin:    array<f32>, [C*(1 + K*S)][cells]
//   2 storage rw    dstate:  array<f32>, [cells][C], added to
//   3 storage rw    dpercep: array<f32>, [K*S][C][cells], overwritten

@group(0) @binding(0) var<uniform> p: ConcatParams;
@group(0) @binding(1) var<storage, read> duin: array<f32>;
@group(0) @binding(2) var<storage, read_write> dstate: array<f32>;
@group(0) @binding(3) var<storage, read_write> dpercep: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let ks = p.kernels * p.bits;
    let width = p.channels * (1u + ks);
    for (var i = gid.x; i < width * p.cells; i += nwg.x * 64u) {
        let f = i / p.cells;
        let cell = i % p.cells;
        if (f < p.channels) {
            dstate[cell * p.channels + f] += duin[i];
            continue;
        }
        let q = f - p.channels;
        let k = q % p.kernels;
        let s = (q / p.kernels) % p.bits;
        let c = q / ks;
        dpercep[((k * p.bits + s) * p.channels + c) * p.cells + cell] = duin[i];
    }
}
