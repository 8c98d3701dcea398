package nn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dlca/dlca/autograd"
)

// Embedding is a lookup table of Weight [Num, Dim]: index i maps to row i,
// as torch.nn.Embedding(num_embeddings, embedding_dim, padding_idx).
type Embedding struct {
	Weight *autograd.Tensor
	// Padded says whether PaddingIdx is set: that row gets no gradient (it
	// stays as it is under training; it starts at zeros).
	Padded     bool
	PaddingIdx int
}

// NewEmbedding returns an Embedding of num rows of length dim, initialised
// from N(0, 1) as PyTorch does, without a padding index. It panics on
// non-positive sizes.
func NewEmbedding(num, dim int, dtype autograd.DType, rng *rand.Rand) *Embedding {
	if num <= 0 || dim <= 0 {
		panic(fmt.Sprintf("nn: NewEmbedding: %d embeddings of dimension %d", num, dim))
	}
	e := &Embedding{Weight: autograd.Zeros(dtype, num, dim)}
	Normal(e.Weight, 0, 1, rng)
	e.Weight.SetRequiresGrad(true)
	return e
}

// WithPadding sets the padding index, as padding_idx: a negative idx counts
// from the end, as in PyTorch. It zeroes that row and returns e. It panics
// when idx is outside [-Num, Num).
func (e *Embedding) WithPadding(idx int) *Embedding {
	num, dim := e.Weight.Size(0), e.Weight.Size(1)
	if idx < -num || idx >= num {
		panic(fmt.Sprintf("nn: Embedding: padding index %d out of range [%d, %d) for weight %v", idx, -num, num, e.Weight.Shape()))
	}
	if idx < 0 {
		idx += num
	}
	for j := range dim {
		e.Weight.SetAt(idx*dim+j, 0)
	}
	e.Padded, e.PaddingIdx = true, idx
	return e
}

// Lookup returns the rows of indices, shaped [shape..., Dim] (shape
// defaults to [len(indices)]). It panics on an index out of [0, Num) or a
// shape that does not hold len(indices) entries.
func (e *Embedding) Lookup(indices []int, shape ...int) *autograd.Tensor {
	num, dim := e.Weight.Size(0), e.Weight.Size(1)
	if shape == nil {
		shape = []int{len(indices)}
	}
	if n := numel(shape); n != len(indices) {
		panic(fmt.Sprintf("nn: Embedding: shape %v for %d indices", shape, len(indices)))
	}
	for i, k := range indices {
		if k < 0 || k >= num {
			panic(fmt.Sprintf("nn: Embedding: index %d (at %d) out of range [0, %d) for weight %v", k, i, num, e.Weight.Shape()))
		}
	}
	rows := autograd.IndexSelect(e.Weight, 0, indices)
	if e.Padded {
		// The padding rows come from a detached copy, so no gradient reaches
		// that row of the weight.
		keep := make([]float64, len(indices))
		for i, k := range indices {
			if k != e.PaddingIdx {
				keep[i] = 1
			}
		}
		rows = autograd.Where(constant(rows, keep, []int{len(indices), 1}), rows, rows.Detach())
	}
	return autograd.Reshape(rows, append(append([]int{}, shape...), dim)...)
}

// Forward looks up x, a tensor of whole-number indices of any shape, and
// returns [x's shape..., Dim]. It panics on an index that is not a whole
// number in [0, Num).
func (e *Embedding) Forward(x *autograd.Tensor) *autograd.Tensor {
	vals := x.Float64s()
	idx := make([]int, len(vals))
	for i, v := range vals {
		if v != math.Trunc(v) || math.Abs(v) > math.MaxInt32 {
			panic(fmt.Sprintf("nn: Embedding: index %v (at %d of input %v) is not a whole number", v, i, x.Shape()))
		}
		idx[i] = int(v)
	}
	return e.Lookup(idx, x.Shape()...)
}

// Parameters returns the weight.
func (e *Embedding) Parameters() []*autograd.Tensor { return []*autograd.Tensor{e.Weight} }

// numel is the number of elements of a shape.
func numel(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}
