package autograd

import (
	"fmt"

	internalgemm "github.com/dlca/dlca/internal/gemm"
)

// MatMul returns the matrix product of a and b with torch.matmul's rules:
// two 1-D tensors give their dot product (0-D); a 1-D a is a row vector and
// a 1-D b a column vector (the added dimension is removed again); otherwise
// the last two dimensions multiply ([..., n, k] × [..., k, m]) and the
// leading (batch) dimensions broadcast. Products run through the
// project's GEMM (internal/gemm). MatMul panics, naming both shapes, when the inner dimensions differ
// or the batch dimensions do not broadcast.
func MatMul(a, b *Tensor) *Tensor {
	checkDType("MatMul", a, b)
	switch {
	case a.Dim() == 0 || b.Dim() == 0:
		panic(fmt.Sprintf("autograd: MatMul: 0-D operand in %v × %v (use Mul)", a.shape, b.shape))
	case a.Dim() == 1 && b.Dim() == 1:
		return Dot(a, b)
	case a.Dim() == 1:
		return Squeeze(MatMul(Unsqueeze(a, 0), b), -2)
	case b.Dim() == 1:
		return Squeeze(MatMul(a, Unsqueeze(b, 1)), -1)
	}
	return product("MatMul", a, b, false, false)
}

// product returns op(a)·op(b) over the last two dimensions, where op
// transposes when ta (tb) is set, broadcasting the batch dimensions, and
// records its rule. The gradients are products of the same kind, so they
// can be differentiated again:
//
//	C = A·B:   dA = G·Bᵀ  dB = Aᵀ·G
//	C = Aᵀ·B:  dA = B·Gᵀ  dB = A·G
//	C = A·Bᵀ:  dA = G·B   dB = Gᵀ·A
//	C = Aᵀ·Bᵀ: dA = Bᵀ·Gᵀ dB = Gᵀ·Aᵀ
//
// each summed over broadcast batch dimensions. The product for an input
// that needs no gradient (typically the data) is skipped.
func product(op string, a, b *Tensor, ta, tb bool) *Tensor {
	out := gemmBatch(op, a, b, ta, tb)
	return Record(op, out, []*Tensor{a, b}, func(g *Tensor) []*Tensor {
		var ga, gb *Tensor
		if a.requiresGrad {
			switch {
			case !ta && !tb:
				ga = product(op, g, b, false, true)
			case ta && !tb:
				ga = product(op, b, g, false, true)
			case !ta && tb:
				ga = product(op, g, b, false, false)
			default:
				ga = product(op, b, g, true, true)
			}
			ga = sumTo(ga, a.shape)
		}
		if b.requiresGrad {
			switch {
			case !ta && !tb:
				gb = product(op, a, g, true, false)
			case ta && !tb:
				gb = product(op, a, g, false, false)
			case !ta && tb:
				gb = product(op, g, a, true, false)
			default:
				gb = product(op, g, a, true, true)
			}
			gb = sumTo(gb, b.shape)
		}
		return []*Tensor{ga, gb}
	})
}

// Dot returns the inner product of two 1-D tensors of equal length (0-D).
func Dot(a, b *Tensor) *Tensor {
	if a.Dim() != 1 || b.Dim() != 1 || a.shape[0] != b.shape[0] {
		panic(fmt.Sprintf("autograd: Dot: shapes %v and %v (want two 1-D tensors of one length)", a.shape, b.shape))
	}
	return Sum(Mul(a, b), false)
}

// Outer returns the outer product of two 1-D tensors: out[i, j] = a[i]·b[j].
func Outer(a, b *Tensor) *Tensor {
	if a.Dim() != 1 || b.Dim() != 1 {
		panic(fmt.Sprintf("autograd: Outer: shapes %v and %v (want two 1-D tensors)", a.shape, b.shape))
	}
	return Mul(Unsqueeze(a, 1), Unsqueeze(b, 0))
}

// Linear returns x·wᵀ + b for x of shape [..., in], w [out, in] and b [out]
// (b may be nil), as torch.nn.functional.linear, without materialising wᵀ.
func Linear(x, w, b *Tensor) *Tensor {
	checkDType("Linear", x, w)
	if x.Dim() == 0 || w.Dim() != 2 || x.shape[x.Dim()-1] != w.shape[1] {
		panic(fmt.Sprintf("autograd: Linear: input %v and weight %v (want [..., in] and [out, in])", x.shape, w.shape))
	}
	in := w.shape[1]
	x2 := Reshape(x, -1, in)
	y := product("Linear", x2, w, false, true)
	shape := append(cloneInts(x.shape[:x.Dim()-1]), w.shape[0])
	y = Reshape(y, shape...)
	if b != nil {
		y = Add(y, b)
	}
	return y
}

// gemmBatch computes op(a)·op(b) over the last two dimensions, where op
// transposes when ta (tb) is set, broadcasting the batch dimensions. It
// records nothing.
func gemmBatch(op string, a, b *Tensor, ta, tb bool) *Tensor {
	if a.Dim() < 2 || b.Dim() < 2 {
		panic(fmt.Sprintf("autograd: %s: shapes %v and %v need at least 2 dimensions", op, a.shape, b.shape))
	}
	ar, ac := a.shape[a.Dim()-2], a.shape[a.Dim()-1]
	br, bc := b.shape[b.Dim()-2], b.shape[b.Dim()-1]
	n, k := ar, ac
	if ta {
		n, k = ac, ar
	}
	k2, m := br, bc
	if tb {
		k2, m = bc, br
	}
	if k != k2 {
		panic(fmt.Sprintf("autograd: %s: inner dimensions differ in %v × %v", op, a.shape, b.shape))
	}
	aBatch, bBatch := a.shape[:a.Dim()-2], b.shape[:b.Dim()-2]
	batch := broadcastShapes(op, aBatch, bBatch)
	if dev := deviceOf(op, a, b); dev != nil {
		out := newOn(dev, a.dtype, append(cloneInts(batch), n, m))
		kernelsOf[MatMulKernels](op, dev, "MatMulKernels").MatMul(out, a, b, ta, tb)
		return out
	}
	out := emptyFor(nil, a.dtype, append(cloneInts(batch), n, m)...) // gemm with beta 0 writes every element
	sa, sb := broadcastStrides(aBatch, batch), broadcastStrides(bBatch, batch)
	bs := stridesOf(batch)
	for i := range numel(batch) {
		oa, ob := 0, 0
		for d := range batch {
			idx := (i / bs[d]) % batch[d]
			oa += idx * sa[d]
			ob += idx * sb[d]
		}
		oa, ob = oa*ar*ac, ob*br*bc
		if a.dtype == Float64 {
			gemm(ta, tb, n, m, k, a.f64[oa:oa+ar*ac], ac, b.f64[ob:ob+br*bc], bc, 0, out.f64[i*n*m:(i+1)*n*m], m, 0)
		} else {
			gemm(ta, tb, n, m, k, a.f32[oa:oa+ar*ac], ac, b.f32[ob:ob+br*bc], bc, 0, out.f32[i*n*m:(i+1)*n*m], m, 0)
		}
	}
	return out
}

// gemm sets c (n×m, row stride ldc) to op(a)·op(b) + beta·c through the
// project's GEMM (internal/gemm), with op(a) n×k and op(b) k×m, on up to
// threads goroutines (0: as many as timing shows to be fastest for
// products of its size, see threadChoices). Its bits do not depend on the
// thread count.
func gemm[T Float](ta, tb bool, n, m, k int, a []T, lda int, b []T, ldb int, beta float64, c []T, ldc int, threads int) {
	if threads <= 0 && n*m*k >= internalgemm.MinWork {
		choice := gemmChoices.of(n * m * k)
		run := choice.Next(float64(n * m * k))
		defer choice.Done(run)
		threads = run.Workers
	}
	switch c := any(c).(type) {
	case []float32:
		internalgemm.Sgemm(ta, tb, n, m, k, any(a).([]float32), max(lda, 1), any(b).([]float32), max(ldb, 1), float32(beta), c, max(ldc, 1), threads)
	case []float64:
		internalgemm.Dgemm(ta, tb, n, m, k, any(a).([]float64), max(lda, 1), any(b).([]float64), max(ldb, 1), beta, c, max(ldc, 1), threads)
	}
}
