// uses: params, gate_sums, gate_input_grad
// gate_backward.wgsl: a gate layer's whole backward pass in one dispatch,
// gate_sums.wgsl and gate_backward_input.wgsl side by side (they read the
// same x, gy and coefficients and write different buffers, so neither waits
// for the other): the first groups*out workgroups of the work each add one
// gate's four per-gate sums into sums, as gate_sums.wgsl; the workgroups
// after them each compute 64 elements of gx, as gate_backward_input.wgsl.
// The bodies are those kernels' own (lib/gate_sums.wgsl,
// lib/gate_input_grad.wgsl): the same bits.
//
// Entry point: main; workgroup size 64; each workgroup takes the work items
// wid.x, wid.x + num_workgroups.x, ... of groups*out + ceil(len(gx) / 64):
// item k < groups*out is gate k's sums, item groups*out + m is elements
// 64m to 64m + 63 of gx. The branch is the workgroup's (it depends on
// wid.x alone), so the sums' barriers are in uniform control flow.
// Bindings (group 0):
//   0 uniform GateParams (Go: gateParams)
//   1 storage read  wiring: array<u32>, [out][2] = (A[o], B[o])
//   2 storage read  rev_start: array<u32>, [in + 1] (gate_backward_input.wgsl)
//   3 storage read  rev_entry: array<u32>, [2*out] (gate_backward_input.wgsl)
//   4 storage read  coeffs: array<f32>, [all gates][4]
//   5 storage read  x: array<f32>, layout as in gate_forward.wgsl
//   6 storage read  gy: array<f32>, [groups*out][rows]
//   7 storage rw    gx: array<f32>, the layout of x
//   8 storage rw    sums: array<f32>, [all gates][4]; gate (g, o) of this
//                   layer is gate_base + g*out + o; added to

@group(0) @binding(0) var<uniform> params: GateParams;
@group(0) @binding(1) var<storage, read> wiring: array<u32>;
@group(0) @binding(2) var<storage, read> rev_start: array<u32>;
@group(0) @binding(3) var<storage, read> rev_entry: array<u32>;
@group(0) @binding(4) var<storage, read> coeffs: array<f32>;
@group(0) @binding(5) var<storage, read> x: array<f32>;
@group(0) @binding(6) var<storage, read> gy: array<f32>;
@group(0) @binding(7) var<storage, read_write> gx: array<f32>;
@group(0) @binding(8) var<storage, read_write> sums: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32, @builtin(num_workgroups) nwg: vec3<u32>) {
    let rows = params.rows;
    let n_gates = params.groups * params.out;
    let shared_x = params.x_group_stride == 0u;
    let x_groups = select(params.groups, 1u, shared_x);
    let n_gx = x_groups * params.in_width * rows;
    let items = n_gates + (n_gx + 63u) / 64u;
    for (var v = wid.x; v < items; v += nwg.x) {
        if (v < n_gates) {
            gateSums(v, t);
        } else {
            let i = (v - n_gates) * 64u + t;
            if (i < n_gx) {
                gx[i] = gateInputGrad(i, shared_x);
            }
        }
    }
}
