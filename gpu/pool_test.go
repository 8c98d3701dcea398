package gpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/dlca/dlca/autograd"
)

// poolCases are awkward poolings: a 1×1 window, overlapping windows with
// padding, ceil mode, dilation whose windows can lie wholly in the padding.
var poolCases = []struct {
	shape []int
	cfg   autograd.Pool2dConfig
}{
	{[]int{1, 1, 1, 1}, autograd.Pool2dConfig{Kernel: [2]int{1, 1}}},
	{[]int{2, 3, 7, 9}, autograd.Pool2dConfig{Kernel: [2]int{3, 3}, Stride: [2]int{2, 2}, Padding: [2]int{1, 1}}},
	{[]int{1, 2, 65, 7}, autograd.Pool2dConfig{Kernel: [2]int{4, 2}, CeilMode: true}},
	{[]int{1, 1, 5, 5}, autograd.Pool2dConfig{Kernel: [2]int{2, 2}, Stride: [2]int{1, 1}, Padding: [2]int{1, 1}, Dilation: [2]int{3, 3}}},
	{[]int{0, 2, 4, 4}, autograd.Pool2dConfig{Kernel: [2]int{2, 2}}},
}

// TestMaxPool holds max_pool.wgsl's maxima and indices exactly to
// autograd.MaxPool2dWith's, with ties (a grid of few values) and a NaN.
func TestMaxPool(t *testing.T) {
	k := GPU{D: testDevice(t)}
	r := rand.New(rand.NewPCG(19, 20))
	for _, c := range poolCases {
		t.Run(fmt.Sprint(c.shape, c.cfg), func(t *testing.T) {
			x := make([]float32, numel(c.shape))
			for i := range x {
				x[i] = float32(r.IntN(4))
			}
			if len(x) > 10 {
				x[10] = float32(math.NaN())
			}
			want, wantIdx, _ := CPUTwin{}.MaxPool(x, c.shape, c.cfg)
			got, idx, err := k.MaxPool(x, c.shape, c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(idx, wantIdx) {
				t.Errorf("indices %v, want %v", idx, wantIdx)
			}
			for i := range want {
				if got[i] != want[i] && !(math.IsNaN(float64(got[i])) && math.IsNaN(float64(want[i]))) {
					t.Errorf("maximum %d: %v, want %v", i, got[i], want[i])
				}
			}
			// The gradient and its transpose, from the indices on the
			// device: the sums run in the CPU's order.
			gy := randomData(r, len(want))
			wantGx, _ := CPUTwin{}.MaxPoolBackward(x, gy, c.shape, c.cfg)
			gotGx, err := k.MaxPoolBackward(x, gy, c.shape, c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			closeTo(t, "input gradient", gotGx, wantGx, 0)
			h := randomData(r, len(x))
			wantH, _ := CPUTwin{}.MaxPoolGather(x, h, c.shape, c.cfg)
			gotH, err := k.MaxPoolGather(x, h, c.shape, c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			closeTo(t, "gathered", gotH, wantH, 0)
		})
	}
}

// TestPoolParity holds max and average pooling through autograd on the GPU,
// with their gradients, to the CPU.
func TestPoolParity(t *testing.T) {
	var cases []opCase
	for _, c := range poolCases {
		cfg := c.cfg
		cases = append(cases, opCase{"MaxPool2d", [][]int{c.shape}, func(xs ...*autograd.Tensor) *autograd.Tensor {
			out, _ := autograd.MaxPool2dWith(xs[0], cfg)
			return out
		}})
		if cfg.Dilation == [2]int{} {
			avg := cfg
			avg.ExcludePad = true
			cases = append(cases, opCase{"AvgPool2d", [][]int{c.shape}, func(xs ...*autograd.Tensor) *autograd.Tensor {
				return autograd.AvgPool2dWith(xs[0], avg)
			}})
		}
	}
	cases = append(cases,
		opCase{"MaxPool2dIndicesOnDevice", [][]int{{2, 3, 7, 9}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
			return autograd.MaxPool2d(xs[0], 3, 2, 1) // the indices never leave the device
		}},
		opCase{"MaxPool1d", [][]int{{2, 3, 63}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
			out, _ := autograd.MaxPool1d(xs[0], autograd.Pool1dConfig{Kernel: 3, Stride: 2, Padding: 1})
			return out
		}},
		opCase{"AvgPool1d", [][]int{{2, 3, 63}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
			return autograd.AvgPool1d(xs[0], autograd.Pool1dConfig{Kernel: 4, DivisorOverride: 3})
		}})
	checkCases(t, tolReduce, cases)
}
