package autograd

import (
	"math/rand/v2"
	"testing"
)

// convGradGeoms are geometries with groups, stride, dilation and
// asymmetric padding, for the backward ops of Conv2d.
var convGradGeoms = []convGeom{
	{n: 2, c: 4, h: 6, w: 5, o: 6, kh: 2, kw: 3, groups: 2, sh: 2, sw: 1, ph: 1, pw: 2, dh: 1, dw: 2, oh: 3, ow: 3},
	{n: 9, c: 2, h: 4, w: 4, o: 3, kh: 3, kw: 2, groups: 1, sh: 1, sw: 2, ph: 0, pw: 1, dh: 2, dw: 1, oh: 1, ow: 2},
}

// TestConvBackwardOpsGrad gradient-checks the input- and weight-gradient ops
// of Conv2d, whose backward rules (again convolutions) carry its second
// order: convInputGrad(gy, w) is x-shaped, convWeightGrad(x, gy) w-shaped.
func TestConvBackwardOpsGrad(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	for i, g := range convGradGeoms {
		x := uniform(rng, -1, 1, g.n, g.c, g.h, g.w)
		w := uniform(rng, -1, 1, g.o, g.cg(), g.kh, g.kw)
		gy := uniform(rng, -1, 1, g.n, g.o, g.oh, g.ow)
		input := func(in []*Tensor) *Tensor { return convInputGrad(g, in[0], in[1]) }
		if err := CheckGrad(input, []*Tensor{gy, w}, 1e-6, 1e-6); err != nil {
			t.Fatalf("geometry %d, input gradient: %v", i, err)
		}
		weight := func(in []*Tensor) *Tensor { return convWeightGrad(g, in[0], in[1]) }
		if err := CheckGrad(weight, []*Tensor{x, gy}, 1e-6, 1e-6); err != nil {
			t.Fatalf("geometry %d, weight gradient: %v", i, err)
		}
	}
}
