// uses: params
// dropout_mask.wgsl: autograd.Dropout's mask from its counter-based random
// stream (its CPU twin is autograd.DropoutKeeps): element i is scale where
// the top 24 bits of a two-round PCG hash of (seed, i) reach threshold, and
// 0 elsewhere. Each element depends on its index alone, so any number of
// invocations, in any order, draw the CPU's mask.
//
// Entry point: main; workgroup size 64; a grid-stride loop over the n
// elements.
// Bindings (group 0):
//   0 uniform DropoutParams (Go: dropoutParams)
//   1 storage rw mask: array<f32>, [n]

@group(0) @binding(0) var<uniform> params: DropoutParams;
@group(0) @binding(1) var<storage, read_write> mask: array<f32>;

// pcg_hash is the PCG hash of Jarzynski and Olano (2020).
fn pcg_hash(v: u32) -> u32 {
    let state = v * 747796405u + 2891336453u;
    let word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u; // safe: the shift is (state >> 28u) + 4u, in [4, 19]
    return (word >> 22u) ^ word;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let key = pcg_hash(params.seed_lo);
    for (var i = gid.x; i < params.n; i += nwg.x * 64u) {
        let draw = pcg_hash(pcg_hash(i ^ key) ^ params.seed_hi) >> 8u;
        mask[i] = select(0.0, params.scale, draw >= params.threshold);
    }
}
