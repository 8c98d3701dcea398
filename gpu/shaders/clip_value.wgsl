// uses: params
// clip_value.wgsl: gradient clipping by value, g = clamp(g, -limit, limit),
// in place.
//
// Entry point: main; workgroup size 64; a grid-stride loop over the elements.
// Bindings (group 0):
//   0 uniform ClipParams (Go: clipParams)
//   1 storage rw grads: array<f32>, [n]

@group(0) @binding(0) var<uniform> params: ClipParams;
@group(0) @binding(1) var<storage, read_write> grads: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    for (var i = gid.x; i < params.n; i += nwg.x * 64u) {
        let g = grads[i];
        // Comparisons, not clamp (which may drop a NaN): a NaN stays NaN,
        // as the CPU's min(max(g, -limit), limit).
        if (g < -params.limit) {
            grads[i] = -params.limit;
        } else if (g > params.limit) {
            grads[i] = params.limit;
        }
    }
}
