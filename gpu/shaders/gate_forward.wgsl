// uses: params
// gate_forward.wgsl: soft forward of one gate layer, feature-major as the
// gates package's ForwardSoftFM (its CPU twin): for gate k = g*out + o and
// row r, y[k][r] = c0 + a*(c1 + c3*b) + c2*b with a = x[g*x_group_stride +
// A[o]][r], b = x[g*x_group_stride + B[o]][r] and c the gate's coefficients.
//
// Entry point: main; workgroup size 64; a grid-stride loop over the output elements
// (groups * out * rows).
// Bindings (group 0):
//   0 uniform GateParams (Go: gateParams)
//   1 storage read  wiring: array<u32>, [out][2] = (A[o], B[o])
//   2 storage read  coeffs: array<f32>, [all gates][4]; this layer's gate
//                   (g, o) is gate_base + g*out + o
//   3 storage read  x: array<f32>, [in][rows] (x_group_stride = 0: groups
//                   share it) or [groups*in][rows] (x_group_stride = in)
//   4 storage rw    y: array<f32>, [groups*out][rows]

@group(0) @binding(0) var<uniform> params: GateParams;
@group(0) @binding(1) var<storage, read> wiring: array<u32>;
@group(0) @binding(2) var<storage, read> coeffs: array<f32>;
@group(0) @binding(3) var<storage, read> x: array<f32>;
@group(0) @binding(4) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let rows = params.rows;
    for (var i = gid.x; i < params.groups * params.out * rows; i += nwg.x * 64u) {
        let k = i / rows; // g * out + o
        let r = i % rows;
        let g = k / params.out;
        let o = k % params.out;
        let xbase = g * params.x_group_stride;
        let a = x[(xbase + wiring[2u * o]) * rows + r];
        let b = x[(xbase + wiring[2u * o + 1u]) * rows + r];
        let c = (params.gate_base + k) * 4u;
        y[i] = coeffs[c] + a * (coeffs[c + 1u] + coeffs[c + 3u] * b) + coeffs[c + 2u] * b;
    }
}
