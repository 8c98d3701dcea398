package autograd

import (
	"math"
	"testing"
)

// TestExtremumNaN checks torch.maximum/minimum at NaN: the value is NaN
// and both operands get the whole gradient (derivatives.yaml:
// where(a == b, g/2, g).masked_fill(a < b, 0) for a, the mirror for b);
// ties split it and otherwise the larger (smaller) operand takes it.
func TestExtremumNaN(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name         string
		f            func(a, b *Tensor) *Tensor
		a, b         []float64
		value        []float64
		gradA, gradB []float64
	}{
		{"Maximum", Maximum, []float64{nan, 1, 2, 3, 1}, []float64{1, nan, 2, 1, 3},
			[]float64{nan, nan, 2, 3, 3}, []float64{1, 1, 0.5, 1, 0}, []float64{1, 1, 0.5, 0, 1}},
		{"Minimum", Minimum, []float64{nan, 1, 2, 3, 1}, []float64{1, nan, 2, 1, 3},
			[]float64{nan, nan, 2, 1, 1}, []float64{1, 1, 0.5, 0, 1}, []float64{1, 1, 0.5, 1, 0}},
	} {
		a := New64(c.a, len(c.a)).SetRequiresGrad(true)
		b := New64(c.b, len(c.b)).SetRequiresGrad(true)
		y := c.f(a, b)
		if err := y.BackwardWith(Ones(Float64, len(c.a))); err != nil {
			t.Fatal(err)
		}
		for i, v := range y.Float64s() {
			if !(v == c.value[i] || math.IsNaN(v) && math.IsNaN(c.value[i])) {
				t.Errorf("%s value %d = %v, want %v", c.name, i, v, c.value[i])
			}
		}
		approxEqual(t, c.name+" gradient of a", a.Grad().Float64s(), c.gradA, 0)
		approxEqual(t, c.name+" gradient of b", b.Grad().Float64s(), c.gradB, 0)
	}
}
