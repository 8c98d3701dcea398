package autograd

import "math"

// Softmax returns exp(t) / sum(exp(t)) along axis, computed stably (shifted
// by the maximum). A 0-D tensor counts as one element along axis 0 or -1.
// Backward: dt = y·(g - sum(g·y)) along axis; a softmax
// over one element is 1 with gradient 0.
func Softmax(t *Tensor, axis int) *Tensor {
	if t.Dim() == 0 {
		return Reshape(Softmax(Reshape(t, 1), axis), []int{}...)
	}
	a := normAxis("Softmax", axis, t.Dim())
	out := softmaxForward(t, a, false)
	return Record("Softmax", out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		return []*Tensor{Mul(out, Sub(g, Sum(Mul(g, out), true, a)))}
	})
}

// LogSoftmax returns t - logsumexp(t) along axis, computed stably.
// Backward: dt = g - softmax(t)·sum(g) along axis.
func LogSoftmax(t *Tensor, axis int) *Tensor {
	if t.Dim() == 0 {
		return Reshape(LogSoftmax(Reshape(t, 1), axis), []int{}...)
	}
	a := normAxis("LogSoftmax", axis, t.Dim())
	out := softmaxForward(t, a, true)
	return Record("LogSoftmax", out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		return []*Tensor{Sub(g, Mul(Exp(out), Sum(g, true, a)))}
	})
}

// softmaxForward computes softmax (or log-softmax) along axis a.
func softmaxForward(t *Tensor, a int, log bool) *Tensor {
	if t.dev != nil {
		out := newOn(t.dev, t.dtype, t.shape)
		reduceOf("Softmax", t.dev).Softmax(out, t, a, log)
		return out
	}
	out := ZerosLike(t)
	outer, n, inner := splitAxis(t.shape, a)
	if t.dtype == Float64 {
		softmaxKernel(out.f64, t.f64, outer, n, inner, log)
	} else {
		softmaxKernel(out.f32, t.f32, outer, n, inner, log)
	}
	return out
}

func softmaxKernel[T Float](dst, src []T, outer, n, inner int, log bool) {
	parallelForCost(outer*inner, n, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			base := (r/inner)*n*inner + r%inner
			m := math.Inf(-1)
			for k := 0; k < n; k++ {
				m = max(m, float64(src[base+k*inner]))
			}
			if math.IsInf(m, 0) {
				m = 0 // NOTE: all -Inf (or an Inf present) must not give Inf - Inf
			}
			sum := 0.0
			for k := 0; k < n; k++ {
				sum += math.Exp(float64(src[base+k*inner]) - m)
			}
			logSum := math.Log(sum)
			for k := 0; k < n; k++ {
				x := float64(src[base+k*inner]) - m
				if log {
					dst[base+k*inner] = T(x - logSum)
				} else {
					dst[base+k*inner] = T(math.Exp(x) / sum)
				}
			}
		}
	})
}
