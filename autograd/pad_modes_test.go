package autograd

import (
	"math/rand/v2"
	"testing"
)

// torchPadIndex is the input cell that output cell j of an axis of length n
// padded by (pl, pr) copies, or -1 for the constant, written from PyTorch
// 1.13's own code rather than from padIndex: the loops of
// reflection_pad1d / replication_pad1d (aten/src/ATen/native/ReflectionPad.cpp,
// ReplicationPadding.cpp), and for circular the copies of
// torch.nn.functional._pad_circular (crop, then copy the wrapped slices).
func torchPadIndex(mode PadMode, n, pl, pr, j int) int {
	iStart, oStart := max(0, -pl), max(0, pl)
	var ip int
	switch mode {
	case PadReflect:
		switch {
		case j < pl:
			ip = pl*2 - j
		case j < n+pl:
			ip = j
		default:
			ip = (n+pl-1)*2 - j
		}
		return ip - oStart + iStart
	case PadReplicate:
		switch {
		case j < pl:
			ip = pl
		case j < n+pl:
			ip = j
		default:
			ip = n + pl - 1
		}
		return ip - oStart + iStart
	case PadCircular:
		size := n + pl + pr
		// The cropped input fills [max(pl,0), size-max(pr,0)); then
		// out[0:pl] = out[size-pl-max(pr,0) : size-max(pr,0)] and
		// out[size-pr:] = out[max(pl,0) : max(pl,0)+pr].
		hi := size - max(pr, 0)
		switch {
		case j < pl:
			j += hi - pl
		case j >= hi:
			j += oStart - (size - pr)
		}
		return j - oStart + iStart
	}
	if p := j - pl; p >= 0 && p < n { // constant
		return p
	}
	return -1
}

// naivePad pads x as F.pad does, cell by cell from torchPadIndex.
func naivePad(x *Tensor, mode PadMode, value float64, pads ...int) (out []float64, shape []int) {
	nd := x.Dim()
	before, after := make([]int, nd), make([]int, nd)
	for i := 0; i < len(pads)/2; i++ {
		before[nd-1-i], after[nd-1-i] = pads[2*i], pads[2*i+1]
	}
	shape = make([]int, nd)
	for d := range nd {
		shape[d] = x.shape[d] + before[d] + after[d]
	}
	out = make([]float64, numel(shape))
	src := make([]int, nd)
	for o := range out {
		rest, at, stride := o, 0, 1
		for d := nd - 1; d >= 0; d-- {
			src[d] = torchPadIndex(mode, x.shape[d], before[d], after[d], rest%shape[d])
			rest /= shape[d]
		}
		out[o] = value
		for d := nd - 1; d >= 0; d-- {
			if src[d] < 0 {
				at = -1
				break
			}
			at += src[d] * stride
			stride *= x.shape[d]
		}
		if at >= 0 {
			out[o] = x.f64[at]
		}
	}
	return out, shape
}

// TestPadModesByHand: F.pad of [1 2 3 4] in every mode, worked out by hand,
// with positive and negative (cropping) pads.
func TestPadModesByHand(t *testing.T) {
	x := New64([]float64{1, 2, 3, 4}, 1, 4)
	cases := []struct {
		name string
		mode PadMode
		pads []int
		want []float64
	}{
		{"constant", PadConstant, []int{2, 1}, []float64{9, 9, 1, 2, 3, 4, 9}},
		{"reflect", PadReflect, []int{2, 1}, []float64{3, 2, 1, 2, 3, 4, 3}},
		{"replicate", PadReplicate, []int{2, 1}, []float64{1, 1, 1, 2, 3, 4, 4}},
		{"circular", PadCircular, []int{2, 1}, []float64{3, 4, 1, 2, 3, 4, 1}},
		{"constant crop", PadConstant, []int{-1, 2}, []float64{2, 3, 4, 9, 9}},
		{"reflect crop", PadReflect, []int{-1, 2}, []float64{2, 3, 4, 3, 2}},
		{"replicate crop", PadReplicate, []int{-1, 2}, []float64{2, 3, 4, 4, 4}},
		// Circular crops first and then wraps around what is left.
		{"circular crop right", PadCircular, []int{-1, 2}, []float64{2, 3, 4, 2, 3}},
		{"circular crop left", PadCircular, []int{1, -1}, []float64{3, 1, 2, 3}},
		{"reflect max", PadReflect, []int{3, 3}, []float64{4, 3, 2, 1, 2, 3, 4, 3, 2, 1}},
		{"circular max", PadCircular, []int{4, 0}, []float64{1, 2, 3, 4, 1, 2, 3, 4}},
	}
	for _, c := range cases {
		var got *Tensor
		if c.mode == PadConstant {
			got = Pad(x, 9, c.pads...)
		} else {
			got = PadWith(x, c.mode, c.pads...)
		}
		approxEqual(t, c.name, got.f64, c.want, 0)
		naive, shape := naivePad(x, c.mode, 9, c.pads...)
		approxEqual(t, c.name+" (naive)", naive, c.want, 0)
		if !sameShape(got.shape, shape) {
			t.Errorf("%s: shape %v, want %v", c.name, got.shape, shape)
		}
	}
	// [[1 2 3] [4 5 6]] reflected by one on both axes.
	y := PadWith(New64([]float64{1, 2, 3, 4, 5, 6}, 2, 3), PadReflect, 1, 1, 1, 1)
	approxEqual(t, "reflect 2-D", y.f64, []float64{
		5, 4, 5, 6, 5,
		2, 1, 2, 3, 2,
		5, 4, 5, 6, 5,
		2, 1, 2, 3, 2,
	}, 0)
}

// TestPadModesReference compares every mode with naivePad on a 3-D tensor
// padded on its last two axes, and checks each gradient: a copied cell's
// gradient sums into its source.
func TestPadModesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	x := uniform(rng, -1, 1, 2, 4, 5)
	for _, mode := range []PadMode{PadConstant, PadReflect, PadReplicate, PadCircular} {
		for _, pads := range [][]int{{1, 2, 3, 0}, {-2, 3, 2, -1}, {4, 4, 0, 0}, {0, 0, 3, 3}} {
			name := mode.String()
			got := PadWith(x, mode, pads...)
			want, shape := naivePad(x, mode, 0, pads...)
			approxEqual(t, name, got.f64, want, 0)
			if !sameShape(got.shape, shape) {
				t.Fatalf("%s %v: shape %v, want %v", name, pads, got.shape, shape)
			}
			// The gradient of sum(w·pad(x)) at each input cell is the sum of
			// w over the output cells that copy it.
			w := uniform(rng, -1, 1, shape...)
			xs := x.Clone().SetRequiresGrad(true)
			if err := Sum(Mul(PadWith(xs, mode, pads...), w), false).Backward(); err != nil {
				t.Fatal(err)
			}
			ones := Ones(Float64, x.shape...)
			for i := range ones.f64 {
				ones.f64[i] = float64(i + 1) // tag each cell to find its copies
			}
			tags, _ := naivePad(ones, mode, 0, pads...)
			wantGrad := make([]float64, x.Len())
			for o, tag := range tags {
				if tag > 0 {
					wantGrad[int(tag)-1] += w.f64[o]
				}
			}
			approxEqual(t, name+" gradient", xs.Grad().f64, wantGrad, 1e-12)
			err := CheckGrad(func(in []*Tensor) *Tensor { return PadWith(in[0], mode, pads...) }, []*Tensor{x}, 1e-6, 1e-6)
			if err != nil {
				t.Fatalf("%s %v: %v", name, pads, err)
			}
		}
	}
}

func TestPadPanics(t *testing.T) {
	x := Zeros(Float64, 2, 3)
	mustPanic(t, "odd", func() { Pad(x, 0, 1) }, "Pad", "[2 3]")
	mustPanic(t, "too many", func() { Pad(x, 0, 1, 1, 1, 1, 1, 1) }, "Pad", "[2 3]")
	mustPanic(t, "crop too long", func() { Pad(x, 0, -2, -2) }, "Pad", "[2 3]")
	mustPanic(t, "reflect too long", func() { PadWith(x, PadReflect, 3, 0) }, "PadWith", "reflect", "[2 3]")
	mustPanic(t, "circular too long", func() { PadWith(x, PadCircular, 0, 4) }, "PadWith", "circular", "[2 3]")
	mustPanic(t, "circular after crop", func() { PadWith(x, PadCircular, -1, 3) }, "PadWith", "circular")
	mustPanic(t, "replicate empty", func() { PadWith(Zeros(Float64, 2, 0), PadReplicate, 1, 1) }, "PadWith", "replicate")
}
