package autograd

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// uniform returns a float64 tensor with elements uniform in [lo, hi).
func uniform(rng *rand.Rand, lo, hi float64, shape ...int) *Tensor {
	t := Zeros(Float64, shape...)
	for i := range t.f64 {
		t.f64[i] = lo + (hi-lo)*rng.Float64()
	}
	return t
}

// awayFromZero returns values in ±[0.2, 1.2): safe for kinks at 0.
func awayFromZero(rng *rand.Rand, shape ...int) *Tensor {
	t := uniform(rng, 0.2, 1.2, shape...)
	for i := range t.f64 {
		if rng.IntN(2) == 0 {
			t.f64[i] = -t.f64[i]
		}
	}
	return t
}

// distinct returns a random permutation of evenly spaced values, so that
// max/min/argmax have no ties and no two values lie within eps.
func distinct(rng *rand.Rand, shape ...int) *Tensor {
	t := Zeros(Float64, shape...)
	for i, p := range rng.Perm(len(t.f64)) {
		t.f64[i] = float64(p)*0.1 - 1
	}
	return t
}

func approxEqual(t *testing.T, name string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %d values %v, want %d %v", name, len(got), got, len(want), want)
	}
	for i := range got {
		if got[i] != want[i] && !(math.Abs(got[i]-want[i]) <= tol*max(1, math.Abs(want[i]))) {
			t.Fatalf("%s: element %d = %v, want %v (all: %v want %v)", name, i, got[i], want[i], got, want)
		}
	}
}

// mustPanic checks that f panics with a message containing every part.
func mustPanic(t *testing.T, name string, f func(), parts ...string) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if r == nil {
			t.Fatalf("%s: no panic", name)
		}
		msg, _ := r.(string)
		for _, p := range parts {
			if !strings.Contains(msg, p) {
				t.Fatalf("%s: panic %q does not mention %q", name, msg, p)
			}
		}
	}()
	f()
}
