package gpu

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/dlca/dlca/autograd"
)

// TestDropoutMask holds dropout_mask.wgsl's masks exactly to
// autograd.Dropout's, drawn from the same seed.
func TestDropoutMask(t *testing.T) {
	k := GPU{D: testDevice(t)}
	for i, c := range []struct {
		n int
		p float64
	}{{1, 0.5}, {7, 0.5}, {65, 0.1}, {1000, 0.9}, {1000, 1}, {0, 0.5}} {
		t.Run(fmt.Sprint(c.n, c.p), func(t *testing.T) {
			want, _ := CPUTwin{}.DropoutMask(c.n, c.p, rand.New(rand.NewPCG(uint64(i), 1)))
			got, err := k.DropoutMask(c.n, c.p, rand.New(rand.NewPCG(uint64(i), 1)))
			if err != nil {
				t.Fatal(err)
			}
			closeTo(t, "mask", got, want, 0)
		})
	}
}

// TestDropoutParity runs Dropout through autograd on both devices: one seed,
// one mask, the same output and gradient.
func TestDropoutParity(t *testing.T) {
	dropout := func(xs ...*autograd.Tensor) *autograd.Tensor {
		return autograd.Dropout(xs[0], 0.4, true, rand.New(rand.NewPCG(5, 6)))
	}
	checkCases(t, tolElementwise, []opCase{
		{"Dropout", [][]int{{}}, dropout},
		{"Dropout", [][]int{{63, 65}}, dropout},
		{"Dropout", [][]int{{2, 0, 3}}, dropout},
	})
}
