// lib/softmax.wgsl: the rules softmax.wgsl and softmax_wide.wgsl share, so
// that both give the CPU's numbers. The exponentials are expf's
// (lib/ieee.wgsl), which decide NaN and ±Inf by their bits: WGSL lets an
// implementation assume that no NaN or Inf reaches exp. A kernel asks for it with
// "// uses: softmax" (and ieee and nan, whose helpers it calls).

// softmaxShift is the slice's maximum m, the value every element is
// shifted by, or 0 when m is infinite, so that a slice of -Inf gives NaN
// rather than Inf - Inf (as on the CPU).
fn softmaxShift(m: f32) -> f32 {
    if (isInf(m)) {
        return 0.0;
    }
    return m;
}

// softmaxNorm is what a slice's elements are normalised by, from its sum
// of exponentials: the sum for the softmax (op 0), its log for the
// log-softmax (op 1); once per slice, not per element.
fn softmaxNorm(op: u32, sum: f32) -> f32 {
    if (op == 1u) {
        return lnf(sum); // a slice of -Inf sums to 0: -Inf, and NaN outputs, as on the CPU
    }
    return sum;
}

// softmaxOut is an element's output from its shifted value v and the
// slice's softmaxNorm: the softmax (op 0) or the log-softmax (op 1).
fn softmaxOut(op: u32, v: f32, norm: f32) -> f32 {
    if (op == 1u) {
        return v - norm;
    }
    return divf(expf(v), norm); // norm is 0 for a slice of -Inf (NaN, as on the CPU) and Inf for one holding +Inf
}
