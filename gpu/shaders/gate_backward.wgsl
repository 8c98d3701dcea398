// uses: params
// gate_backward.wgsl: a gate layer's whole backward pass in one dispatch,
// gate_sums.wgsl and gate_backward_input.wgsl side by side (they read the
// same x, gy and coefficients and write different buffers, so neither waits
// for the other): the first groups*out workgroups of the work each add one
// gate's four per-gate sums into sums, as gate_sums.wgsl; the workgroups
// after them each compute 64 elements of gx, as gate_backward_input.wgsl.
// Every value is computed as in those kernels, in the same order: the same
// bits.
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

var<workgroup> partial: array<vec4<f32>, 64>;

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
                gx[i] = inputGrad(i, shared_x);
            }
        }
    }
}

// gateSums adds gate k's four sums (gate_sums.wgsl's loop body).
fn gateSums(k: u32, t: u32) {
    let rows = params.rows;
    let g = k / params.out;
    let o = k % params.out;
    let fa = (g * params.x_group_stride + wiring[2u * o]) * rows;
    let fb = (g * params.x_group_stride + wiring[2u * o + 1u]) * rows;
    var s = vec4<f32>(0.0);
    for (var r = t; r < rows; r += 64u) {
        let a = x[fa + r];
        let b = x[fb + r];
        let d = gy[k * rows + r];
        s += vec4<f32>(d, d * a, d * b, d * a * b);
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
        let c = (params.gate_base + k) * 4u;
        sums[c] += partial[0].x;
        sums[c + 1u] += partial[0].y;
        sums[c + 2u] += partial[0].z;
        sums[c + 3u] += partial[0].w;
    }
    workgroupBarrier(); // partial is reused for the next gate
}

// inputGrad is element i of gx (gate_backward_input.wgsl's loop body).
fn inputGrad(i: u32, shared_x: bool) -> f32 {
    let rows = params.rows;
    let f = i / rows; // feature: x group * in + j
    let r = i % rows;
    let j = f % params.in_width;
    var g_first = f / params.in_width;
    var g_end = g_first + 1u;
    if (shared_x) {
        g_first = 0u;
        g_end = params.groups;
    }
    var total = 0.0;
    for (var g = g_first; g < g_end; g++) {
        let xbase = g * params.x_group_stride;
        for (var e = rev_start[j]; e < rev_start[j + 1u]; e++) {
            let o = rev_entry[e] / 2u;
            let k = g * params.out + o;
            let c = (params.gate_base + k) * 4u;
            var d: f32;
            if ((rev_entry[e] & 1u) == 0u) {
                d = coeffs[c + 1u] + coeffs[c + 3u] * x[(xbase + wiring[2u * o + 1u]) * rows + r];
            } else {
                d = coeffs[c + 2u] + coeffs[c + 3u] * x[(xbase + wiring[2u * o]) * rows + r];
            }
            total += gy[k * rows + r] * d;
        }
    }
    return total;
}
