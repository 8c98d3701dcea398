package gpu

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/dlca/dlca/autograd"
)

// TestConv2d holds the convolution and both its gradients on the GPU to
// autograd.Conv2d and its Backward on the CPU, over strides, padding,
// dilation, groups, padding='same', 1-wide kernels and images, a kernel as
// large as the padded input, and an empty batch.
func TestConv2d(t *testing.T) {
	d := testDevice(t)
	r := rand.New(rand.NewPCG(17, 18))
	for _, c := range []struct {
		x, w []int
		cfg  autograd.Conv2dConfig
	}{
		{[]int{1, 1, 1, 1}, []int{1, 1, 1, 1}, autograd.Conv2dConfig{}},
		{[]int{2, 3, 7, 9}, []int{5, 3, 3, 3}, autograd.Conv2dConfig{Padding: [2]int{1, 1}}},
		{[]int{3, 4, 9, 7}, []int{6, 2, 3, 2}, autograd.Conv2dConfig{Stride: [2]int{2, 1}, Padding: [2]int{2, 0}, Dilation: [2]int{1, 2}, Groups: 2}},
		{[]int{1, 2, 1, 65}, []int{4, 2, 1, 7}, autograd.Conv2dConfig{Stride: [2]int{1, 3}, Padding: [2]int{0, 3}}},
		{[]int{2, 6, 5, 5}, []int{6, 1, 3, 3}, autograd.Conv2dConfig{Groups: 6, Rule: autograd.PaddingSame}},
		{[]int{1, 1, 3, 3}, []int{2, 1, 5, 5}, autograd.Conv2dConfig{Padding: [2]int{1, 1}}},
		{[]int{0, 2, 4, 4}, []int{3, 2, 3, 3}, autograd.Conv2dConfig{}},
	} {
		t.Run(fmt.Sprint(c.x, c.w, c.cfg), func(t *testing.T) {
			xs, ws := randomData(r, numel(c.x)), randomData(r, numel(c.w))
			x := autograd.New(slices.Clone(xs), c.x...).SetRequiresGrad(true)
			w := autograd.New(slices.Clone(ws), c.w...).SetRequiresGrad(true)
			y := autograd.Conv2d(x, w, nil, c.cfg)
			gys := randomData(r, y.Len())
			loss := autograd.Sum(autograd.Mul(y, autograd.New(slices.Clone(gys), y.Shape()...)), false)
			if err := loss.Backward(); err != nil {
				t.Fatal(err)
			}

			g := autograd.Conv2dGeometry(c.x, c.w, c.cfg)
			s := GPU{D: d}.start()
			defer s.close()
			bx, bw, bgy := s.in("x", xs, 0), s.in("w", ws, 0), s.in("gy", gys, 0)
			by, cols, dcols := s.in("y", nil, y.Len()), s.in("cols", nil, ColsLen(g)), s.in("dcols", nil, ColsLen(g))
			bgx, bgw := s.in("gx", nil, len(xs)), s.in("gw", nil, len(ws))
			if s.err == nil {
				s.record(s.p.Conv2d(by, bx, bw, cols, g))
				s.record(s.p.Conv2dInputGrad(bgx, bgy, bw, dcols, g))
				s.record(s.p.Conv2dWeightGrad(bgw, bgy, cols, g))
			}
			gotY, gotX, gotW := s.read(by, y.Len()), s.read(bgx, len(xs)), s.read(bgw, len(ws))
			if s.err != nil {
				t.Fatal(s.err)
			}
			closeTo(t, "y", gotY, y.Data32(), 1e-4)
			closeTo(t, "dx", gotX, x.Grad().Data32(), 1e-4)
			closeTo(t, "dw", gotW, w.Grad().Data32(), 1e-4)
		})
	}
}

// TestConvTwins holds the convolution's kernels to their CPU twins
// (tensorKernels): im2col.wgsl through Conv2d, col2im.wgsl through
// Conv2dInputGrad.
func TestConvTwins(t *testing.T) {
	k := GPU{D: testDevice(t)}
	r := rand.New(rand.NewPCG(21, 22))
	xShape, wShape := []int{2, 4, 7, 6}, []int{6, 2, 3, 3}
	cfg := autograd.Conv2dConfig{Stride: [2]int{2, 1}, Padding: [2]int{1, 2}, Dilation: [2]int{1, 2}, Groups: 2}
	x, w := randomData(r, numel(xShape)), randomData(r, numel(wShape))
	g := autograd.Conv2dGeometry(xShape, wShape, cfg)
	gy := randomData(r, g.N*g.O*g.OutH*g.OutW)
	wantY, _ := CPUTwin{}.Conv2d(x, w, xShape, wShape, cfg)
	wantGx, _ := CPUTwin{}.Conv2dInputGrad(gy, w, xShape, wShape, cfg)
	y, err := k.Conv2d(x, w, xShape, wShape, cfg)
	if err != nil {
		t.Fatal(err)
	}
	gx, err := k.Conv2dInputGrad(gy, w, xShape, wShape, cfg)
	if err != nil {
		t.Fatal(err)
	}
	closeTo(t, "y", y, wantY, 1e-4)
	closeTo(t, "dx", gx, wantGx, 1e-4)
}
