package autograd

import (
	"math/rand/v2"
	"testing"
)

// TestGatherSmallerIndex checks torch.gather's rule that the index may be
// smaller than the input along the other axes: out[i][j] = t[i][index[i][j]].
func TestGatherSmallerIndex(t *testing.T) {
	x := New64([]float64{0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23}, 3, 4).SetRequiresGrad(true)
	y := GatherShaped(x, 1, []int{3, 0, 1, 1}, []int{2, 2})
	approxEqual(t, "shape", intsToFloats(y.Shape()), []float64{2, 2}, 0)
	approxEqual(t, "values", y.Float64s(), []float64{3, 0, 11, 11}, 0)
	if err := y.BackwardWith(New64([]float64{1, 2, 3, 4}, 2, 2)); err != nil {
		t.Fatal(err)
	}
	// Row 1's two picks of column 1 add up; row 2 is not read.
	approxEqual(t, "gradient", x.Grad().Float64s(), []float64{2, 0, 0, 1, 0, 7, 0, 0, 0, 0, 0, 0}, 0)
	mustPanic(t, "index longer than t along another axis", func() { GatherShaped(x, 1, make([]int, 8), []int{4, 2}) }, "Gather", "[4 2]")
	mustPanic(t, "wrong count", func() { GatherShaped(x, 1, make([]int, 3), []int{2, 2}) }, "Gather", "3 indices")
	mustPanic(t, "out of range", func() { GatherShaped(x, 0, []int{0, 3}, []int{1, 2}) }, "Gather", "index 3")
}

// TestScatterAddSmallerIndex checks torch.scatter_add with an index smaller
// than both t and src: only src's block of the index's shape is added.
func TestScatterAddSmallerIndex(t *testing.T) {
	base := Zeros(Float64, 3, 4).SetRequiresGrad(true)
	src := New64([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9}, 3, 3).SetRequiresGrad(true)
	y := ScatterAddShaped(base, 0, []int{2, 0, 1, 2}, []int{2, 2}, src)
	// out[2][0] += 1, out[0][1] += 2, out[1][0] += 4, out[2][1] += 5.
	approxEqual(t, "values", y.Float64s(), []float64{0, 2, 0, 0, 4, 0, 0, 0, 1, 5, 0, 0}, 0)
	g := New64([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, 3, 4)
	if err := y.BackwardWith(g); err != nil {
		t.Fatal(err)
	}
	approxEqual(t, "gradient of t", base.Grad().Float64s(), g.Float64s(), 0)
	// src[i][j] reads g at the position it was added to; unused entries get 0.
	approxEqual(t, "gradient of src", src.Grad().Float64s(), []float64{9, 2, 0, 5, 10, 0, 0, 0, 0}, 0)
	mustPanic(t, "index larger than src", func() { ScatterAddShaped(base, 0, make([]int, 4), []int{1, 4}, src) }, "ScatterAdd", "larger than source")
}

// TestIndexAddAlpha checks torch.index_add with alpha: out[idx[j]] += alpha·src[j].
func TestIndexAddAlpha(t *testing.T) {
	src := New64([]float64{1, 2, 3}, 3).SetRequiresGrad(true)
	y := IndexAddAlpha(Zeros(Float64, 3), 0, []int{0, 2, 0}, src, 2)
	approxEqual(t, "values", y.Float64s(), []float64{8, 0, 4}, 0)
	if err := y.BackwardWith(New64([]float64{1, 10, 100}, 3)); err != nil {
		t.Fatal(err)
	}
	approxEqual(t, "gradient of src", src.Grad().Float64s(), []float64{2, 200, 2}, 0)
}

// TestIndexGradCheck checks the shaped index ops' gradients against
// central differences.
func TestIndexGradCheck(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	cases := []struct {
		name string
		in   []*Tensor
		f    func(x []*Tensor) *Tensor
	}{
		{"GatherShaped", []*Tensor{uniform(rng, -1, 1, 3, 4, 2)}, func(x []*Tensor) *Tensor {
			return GatherShaped(x[0], 1, []int{3, 0, 1, 1, 2, 2, 0, 3, 1, 0, 0, 0}, []int{2, 3, 2})
		}},
		{"ScatterAddShaped", []*Tensor{uniform(rng, -1, 1, 3, 4), uniform(rng, -1, 1, 3, 3)}, func(x []*Tensor) *Tensor {
			return ScatterAddShaped(x[0], 1, []int{3, 3, 0, 1}, []int{2, 2}, x[1])
		}},
		{"IndexAddAlpha", []*Tensor{uniform(rng, -1, 1, 3, 2), uniform(rng, -1, 1, 4, 2)}, func(x []*Tensor) *Tensor {
			return IndexAddAlpha(x[0], 0, []int{0, 2, 0, 1}, x[1], -1.5)
		}},
	}
	for _, c := range cases {
		if err := CheckGrad(c.f, c.in, 1e-6, 1e-6); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

func intsToFloats(s []int) []float64 {
	f := make([]float64, len(s))
	for i, v := range s {
		f[i] = float64(v)
	}
	return f
}
