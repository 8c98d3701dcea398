package autograd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMaxPool2x2FastPathPicks: MaxPool2d with a 2×2 window and stride 2
// (the fast path) returns, for every window, the first cell holding the
// maximum, or the last NaN when the window has one, as PyTorch's
// max_pool2d (NaN wins) and the general loop do: checked against a
// definition written here, on planes with ties at 0 (as after ReLU), -0
// beside +0, infinities and NaNs, odd sizes (the last row and column
// unused).
func TestMaxPool2x2FastPathPicks(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	const n, c, h, w = 2, 3, 9, 7
	x := Zeros(Float32, n, c, h, w)
	for i := range x.f32 {
		switch rng.IntN(8) {
		case 0, 1, 2:
			x.f32[i] = 0
		case 3:
			x.f32[i] = float32(math.Copysign(0, -1))
		case 4:
			x.f32[i] = float32(math.Inf(-1 + 2*rng.IntN(2)))
		case 5:
			if rng.IntN(4) == 0 {
				x.f32[i] = float32(math.NaN())
			}
		default:
			x.f32[i] = float32(rng.NormFloat64())
		}
	}
	out, idx := MaxPool2dWith(x, Pool2dConfig{Kernel: [2]int{2, 2}})
	oh, ow := h/2, w/2
	for p := range n * c {
		plane := x.f32[p*h*w : (p+1)*h*w]
		for i := range oh {
			for j := range ow {
				cells := []int{2*i*w + 2*j, 2*i*w + 2*j + 1, (2*i+1)*w + 2*j, (2*i+1)*w + 2*j + 1}
				want := cells[0]
				for _, k := range cells {
					if math.IsNaN(float64(plane[k])) {
						want = k // the last NaN
					}
				}
				if !math.IsNaN(float64(plane[want])) {
					for _, k := range cells {
						if plane[k] > plane[want] {
							want = k // strictly greater: ties keep the first
						}
					}
				}
				o := (p*oh+i)*ow + j
				got := out.f32[o]
				if idx[o] != want || math.Float32bits(got) != math.Float32bits(plane[want]) {
					t.Fatalf("plane %d window (%d,%d) %v: index %d value %v, want %d %v", p, i, j,
						[]float32{plane[cells[0]], plane[cells[1]], plane[cells[2]], plane[cells[3]]}, idx[o], got, want, plane[want])
				}
			}
		}
	}
}
