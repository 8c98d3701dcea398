// uses: params, gate_input_grad
// gate_backward_input.wgsl: gradient of a gate layer's input, feature-major
// as the gates package's BackwardSoftFM (its CPU twin), gathered through the
// reverse index (WGSL has no float atomics, and a gather in a fixed order is
// deterministic): for each input feature j of group g and row r,
//   gx[g*in + j][r] = sum over gates o reading j as a: gy[g*out + o][r] * (c1 + c3*b)
//                   + sum over gates o reading j as b: gy[g*out + o][r] * (c2 + c3*a).
// When the groups share x (x_group_stride = 0), gx[j][r] also sums over the
// groups, in increasing g: the order in which BackwardSoftFM adds.
//
// Entry point: main; workgroup size 64; a grid-stride loop over the elements
// of gx.
// Bindings (group 0):
//   0 uniform GateParams (Go: gateParams)
//   1 storage read  wiring: array<u32>, [out][2] = (A[o], B[o])
//   2 storage read  rev_start: array<u32>, [in + 1]: input j's entries are
//                   rev_entry[rev_start[j] .. rev_start[j+1]]
//   3 storage read  rev_entry: array<u32>, [2*out]: 2*o + 0 (read as a) or
//                   2*o + 1 (read as b), increasing
//   4 storage read  coeffs: array<f32>, [all gates][4]
//   5 storage read  x: array<f32>, layout as in gate_forward.wgsl
//   6 storage read  gy: array<f32>, [groups*out][rows]
//   7 storage rw    gx: array<f32>, the layout of x

@group(0) @binding(0) var<uniform> params: GateParams;
@group(0) @binding(1) var<storage, read> wiring: array<u32>;
@group(0) @binding(2) var<storage, read> rev_start: array<u32>;
@group(0) @binding(3) var<storage, read> rev_entry: array<u32>;
@group(0) @binding(4) var<storage, read> coeffs: array<f32>;
@group(0) @binding(5) var<storage, read> x: array<f32>;
@group(0) @binding(6) var<storage, read> gy: array<f32>;
@group(0) @binding(7) var<storage, read_write> gx: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let shared_x = params.x_group_stride == 0u;
    let x_groups = select(params.groups, 1u, shared_x);
    for (var i = gid.x; i < x_groups * params.in_width * params.rows; i += nwg.x * 64u) {
        gx[i] = gateInputGrad(i, shared_x);
    }
}
