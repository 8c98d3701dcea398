// uses: params
// fire_mask_backward.wgsl: fire_mask.wgsl's backward pass, as
// dlca.SplitFiredGrad (its CPU twin): the gradient of the next state goes to
// the update output where the cell fired and to the old state where it did
// not,
//   dupd[c][cell] = fire ? dnext[cell, c] : 0;   dstate[cell, c] = fire ? 0 : dnext[cell, c]
// (dstate is overwritten: this is the first contribution to it in a step).
//
// Entry point: main; workgroup size 64; a grid-stride loop over the elements of dnext.
// Bindings (group 0):
//   0 uniform CellParams (Go: cellParams)
//   1 storage read  fire:   array<f32>, [cells]
//   2 storage read  dnext:  array<f32>, [cells][C]
//   3 storage rw    dupd:   array<f32>, [C][cells]
//   4 storage rw    dstate: array<f32>, [cells][C]

@group(0) @binding(0) var<uniform> p: CellParams;
@group(0) @binding(1) var<storage, read> fire: array<f32>;
@group(0) @binding(2) var<storage, read> dnext: array<f32>;
@group(0) @binding(3) var<storage, read_write> dupd: array<f32>;
@group(0) @binding(4) var<storage, read_write> dstate: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    for (var i = gid.x; i < p.cells * p.channels; i += nwg.x * 64u) {
        let cell = i / p.channels;
        let c = i % p.channels;
        let u = c * p.cells + cell;
        if (fire[cell] != 0.0) {
            dupd[u] = dnext[i];
            dstate[i] = 0.0;
        } else {
            dupd[u] = 0.0;
            dstate[i] = dnext[i];
        }
    }
}
