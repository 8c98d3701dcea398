// lib/gate_input_grad.wgsl: one element of a gate layer's input gradient,
// the body that gate_backward_input.wgsl and gate_backward.wgsl share (so
// both give the same bits). A kernel asks for it with
// "// uses: gate_input_grad" (and params) and declares the module-scope
// names it reads: params (GateParams), wiring, rev_start, rev_entry, coeffs,
// x and gy.

// gateInputGrad is element i of gx (feature f = i / rows, row r): the sum
// over the gates reading input j of f as a of gy·(c1 + c3·b), and over
// those reading it as b of gy·(c2 + c3·a), through the reverse index in
// increasing order; when the groups share x (shared_x), over every group
// too, in increasing g.
fn gateInputGrad(i: u32, shared_x: bool) -> f32 {
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
