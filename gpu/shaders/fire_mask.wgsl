// uses: params
// fire_mask.wgsl: the asynchronous update, as dlca.SelectFired (its CPU
// twin): a cell that fires takes the update network's output, one that does
// not keeps its state,
//   next[cell, c] = fire[cell] != 0 ? upd[c][cell] : state[cell, c]
// with fire 0 or 1 (all ones in a synchronous step). The masks come from the
// host (dlca.FireMasks), so the GPU sees the CPU's masks.
//
// Entry point: main; workgroup size 64; a grid-stride loop over the elements of next.
// Bindings (group 0):
//   0 uniform CellParams (Go: cellParams)
//   1 storage read  fire:  array<f32>, [cells]
//   2 storage read  state: array<f32>, [cells][C]
//   3 storage read  upd:   array<f32>, [C][cells], the last layer's output
//   4 storage rw    next:  array<f32>, [cells][C]

@group(0) @binding(0) var<uniform> p: CellParams;
@group(0) @binding(1) var<storage, read> fire: array<f32>;
@group(0) @binding(2) var<storage, read> state: array<f32>;
@group(0) @binding(3) var<storage, read> upd: array<f32>;
@group(0) @binding(4) var<storage, read_write> next: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    for (var i = gid.x; i < p.cells * p.channels; i += nwg.x * 64u) {
        let cell = i / p.channels;
        let c = i % p.channels;
        if (fire[cell] != 0.0) {
            next[i] = upd[c * p.cells + cell];
        } else {
            next[i] = state[i];
        }
    }
}
