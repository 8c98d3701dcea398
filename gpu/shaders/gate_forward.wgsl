// gate_forward.wgsl: soft forward of one gate layer, batched over rows and
// groups: y[r, g, o] = c0 + c1*a + c2*b + c3*a*b with a = x[r, g, A[o]],
// b = x[r, g, B[o]] and c the coefficients of gate (g, o).
//
// Entry point: main; workgroup size 64; a grid-stride loop over the output elements
// (rows * groups * out).
// Bindings (group 0):
//   0 uniform GateParams (Go: gateParams)
//   1 storage read  wiring: array<u32>, [out][2] = (A[o], B[o])
//   2 storage read  coeffs: array<f32>, [all gates][4]; this layer's gate
//                   (g, o) is gate_base + g*out + o
//   3 storage read  x: array<f32>, [rows][in] (x_row_stride = in,
//                   x_group_stride = 0: groups share it) or [rows][groups][in]
//                   (x_row_stride = groups*in, x_group_stride = in)
//   4 storage rw    y: array<f32>, [rows][groups][out]

struct GateParams {
    rows: u32,
    in_width: u32,
    out: u32,
    groups: u32,
    x_row_stride: u32,
    x_group_stride: u32,
    gate_base: u32,
    _pad0: u32,
}

@group(0) @binding(0) var<uniform> params: GateParams;
@group(0) @binding(1) var<storage, read> wiring: array<u32>;
@group(0) @binding(2) var<storage, read> coeffs: array<f32>;
@group(0) @binding(3) var<storage, read> x: array<f32>;
@group(0) @binding(4) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let per_row = params.groups * params.out;
    for (var i = gid.x; i < params.rows * per_row; i += nwg.x * 64u) {
        let r = i / per_row;
        let go = i % per_row; // g * out + o
        let g = go / params.out;
        let o = go % params.out;
        let xbase = r * params.x_row_stride + g * params.x_group_stride;
        let a = x[xbase + wiring[2u * o]];
        let b = x[xbase + wiring[2u * o + 1u]];
        let c = (params.gate_base + go) * 4u;
        y[i] = coeffs[c] + coeffs[c + 1u] * a + coeffs[c + 2u] * b + coeffs[c + 3u] * a * b;
    }
}
