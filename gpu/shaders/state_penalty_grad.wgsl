// uses: params
// state_penalty_grad.wgsl: the state penalty's gradient (bptt's
// Run.StatePenalty, not the paper's method), added in place to the gradient
// that flows back into an intermediate state:
//   penalty = weight * sum over the state's values of x(1-x)
//   dstate[i] += weight * (1 - 2 * state[i])
// The weight is in the uniform, so the engine changes it without recording
// its program again.
//
// Entry point: main; workgroup size 64; a grid-stride loop over the elements.
// Bindings (group 0):
//   0 uniform PenaltyParams (Go: penaltyParams)
//   1 storage read  state:  array<f32>, [n]
//   2 storage rw    dstate: array<f32>, [n]

@group(0) @binding(0) var<uniform> params: PenaltyParams;
@group(0) @binding(1) var<storage, read> state: array<f32>;
@group(0) @binding(2) var<storage, read_write> dstate: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    for (var i = gid.x; i < params.n; i += nwg.x * 64u) {
        dstate[i] += params.weight * (1.0 - 2.0 * state[i]);
    }
}
