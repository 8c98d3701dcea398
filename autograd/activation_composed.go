package autograd

// Activations that PyTorch defines as compositions of other functions,
// written here the same way, so that their values and gradients (at the
// kinks too) are PyTorch's and every device runs them with the ops they
// are made of.

// Relu6 returns min(max(t, 0), 6), as torch.nn.functional.relu6, which
// PyTorch computes as hardtanh(t, 0, 6): the gradient is 1 strictly
// between 0 and 6 (and at NaN) and 0 elsewhere, the bounds included.
func Relu6(t *Tensor) *Tensor { return Hardtanh(t, 0, 6) }

// Softsign returns t/(1 + |t|), as torch.nn.functional.softsign (the same
// composition), so the gradient is 1/(1 + |t|)², 1 at 0.
func Softsign(t *Tensor) *Tensor { return Div(t, AddScalar(Abs(t), 1)) }

// Softmin returns Softmax(-t) along axis, as
// torch.nn.functional.softmin(t, axis): the smallest entries get the
// largest weights.
func Softmin(t *Tensor, axis int) *Tensor { return Softmax(Neg(t), axis) }

// ArgMaxAll returns the index of t's largest element in row-major order,
// as torch.argmax(t) without a dim: the first one among ties, and the
// first NaN when there is one (PyTorch takes NaN as the largest). It
// panics on an empty tensor.
func ArgMaxAll(t *Tensor) int { return ArgMax(Reshape(t, t.Len()), 0)[0] }

// ArgMinAll is ArgMaxAll for the smallest element, as torch.argmin(t).
func ArgMinAll(t *Tensor) int { return ArgMin(Reshape(t, t.Len()), 0)[0] }
