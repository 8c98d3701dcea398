// uses: params
// loss.wgsl: the training loss at the final step and its gradient,
//   loss = sum over cells and channels of w[c] * (state - target)^2
//   dstate[cell, c] = 2 * w[c] * (state - target)
// with w[c] = 1 on the loss channels and 0 elsewhere. The sum is reduced by
// one workgroup in a fixed order (invocation t adds elements t, t+64, ...;
// then a tree), so it is deterministic; it accumulates in f32.
//
// Entry point: main; workgroup size 64; exactly one workgroup.
// Bindings (group 0):
//   0 uniform CellParams (Go: cellParams)
//   1 storage read  weight: array<f32>, [C]
//   2 storage read  state:  array<f32>, [cells][C]
//   3 storage read  want:   array<f32>, [cells][C], the target
//   4 storage rw    dstate: array<f32>, [cells][C]
//   5 storage rw    loss:   array<f32>, [1]

@group(0) @binding(0) var<uniform> p: CellParams;
@group(0) @binding(1) var<storage, read> weight: array<f32>;
@group(0) @binding(2) var<storage, read> state: array<f32>;
@group(0) @binding(3) var<storage, read> want: array<f32>;
@group(0) @binding(4) var<storage, read_write> dstate: array<f32>;
@group(0) @binding(5) var<storage, read_write> loss: array<f32>;

var<workgroup> partial: array<f32, 64>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) t: u32) {
    var s = 0.0;
    for (var i = t; i < p.cells * p.channels; i += 64u) {
        let w = weight[i % p.channels];
        let d = state[i] - want[i];
        dstate[i] = 2.0 * w * d;
        s += w * d * d;
    }
    partial[t] = s;
    workgroupBarrier();
    for (var half = 32u; half > 0u; half /= 2u) {
        if (t < half) {
            partial[t] += partial[t + half];
        }
        workgroupBarrier();
    }
    if (t == 0u) {
        loss[0] = partial[0];
    }
}
