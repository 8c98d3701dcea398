package gpu

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/gates"
)

// TestGateLayerParity holds the gate layer on the GPU, through autograd
// (gates.DeviceKernels on the recorded engine's kernels), to the CPU's
// fused layer: the output and the gradients of x and the logits, with
// shared and per-group inputs, one row, sizes around the workgroup, and no
// rows at all.
func TestGateLayerParity(t *testing.T) {
	var cases []opCase
	for i, c := range []struct{ in, out, groups, rows int }{
		{2, 1, 1, 1},
		{7, 63, 1, 65},
		{16, 8, 3, 7},
		{65, 33, 2, 0},
	} {
		w := gates.RandomWiring(c.in, c.out, rand.New(rand.NewPCG(uint64(i), 3)))
		l := gates.NewLayer("parity", c.in, w, c.groups, gates.Init{Gaussian: true, Std: 2}, autograd.Float32, rand.New(rand.NewPCG(uint64(i), 4)))
		forward := func(xs ...*autograd.Tensor) *autograd.Tensor {
			l.Logits = xs[1]
			return l.Forward(xs[0])
		}
		logits := l.Logits.Shape()
		cases = append(cases,
			opCase{fmt.Sprintf("shared%d", i), [][]int{{c.rows, c.in}, logits}, forward},
			opCase{fmt.Sprintf("grouped%d", i), [][]int{{c.rows, c.groups, c.in}, logits}, forward})
	}
	checkCases(t, tolReduce, cases)
}

// TestGateLayerDeviceErrors checks the messages of a layer whose input and
// logits live on different devices.
func TestGateLayerDeviceErrors(t *testing.T) {
	dev := testAutograd(t)
	l := gates.NewLayer("split", 4, gates.RandomWiring(4, 3, rand.New(rand.NewPCG(1, 1))), 1, gates.DefaultInit(), autograd.Float32, nil)
	x, err := autograd.Zeros(autograd.Float32, 2, 4).To(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if r := fmt.Sprint(recover()); r == "<nil>" || !containsAll(r, "split", "logits on cpu", "To") {
			t.Errorf("panic %q, want one naming the layer, the logits' device and To", r)
		}
	}()
	l.Forward(x)
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
