package autograd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDropoutStream checks the counter-based stream's statistics: the share
// of elements kept is 1-p within a few standard deviations, kept elements
// are scaled by 1/(1-p), the same rng seed gives the same mask and another
// seed a different one.
func TestDropoutStream(t *testing.T) {
	const n, p = 100000, 0.3
	x := Ones(Float32, n)
	mask := Dropout(x, p, true, rand.New(rand.NewPCG(1, 2)))
	kept := 0
	for i := range n {
		switch v := mask.At(i); {
		case v == 0:
		case math.Abs(v-1/(1-p)) < 1e-6:
			kept++
		default:
			t.Fatalf("element %d is %v, want 0 or %v", i, v, 1/(1-p))
		}
	}
	sd := math.Sqrt(n * p * (1 - p))
	if d := math.Abs(float64(kept) - n*(1-p)); d > 5*sd {
		t.Errorf("kept %d of %d, want about %v (±%.0f)", kept, n, n*(1-p), 5*sd)
	}
	same := Dropout(x, p, true, rand.New(rand.NewPCG(1, 2)))
	other := Dropout(x, p, true, rand.New(rand.NewPCG(3, 4)))
	differ := 0
	for i := range n {
		if same.At(i) != mask.At(i) {
			t.Fatalf("element %d differs between two draws from one seed", i)
		}
		if other.At(i) != mask.At(i) {
			differ++
		}
	}
	if want := 2 * n * p * (1 - p); math.Abs(float64(differ)-want) > 5*math.Sqrt(want) {
		t.Errorf("masks of two seeds differ in %d elements, want about %.0f (independent masks)", differ, want)
	}
	if DropoutThreshold(0) != 0 || DropoutThreshold(1) != 1<<24 {
		t.Errorf("thresholds %d and %d for p = 0 and 1, want 0 and 2^24", DropoutThreshold(0), DropoutThreshold(1))
	}
}
