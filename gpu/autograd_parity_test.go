package gpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/dlca/dlca/autograd"
)

// The parity harness for autograd on the GPU: one test body run on both
// devices, and checkParity, which runs an op on CPU inputs and on their
// copies on the GPU and compares the output and every input's gradient.

// sharedAutograd is the autograd device all tests use, on the shared Device.
var sharedAutograd struct {
	once sync.Once
	a    *AutogradDevice
}

// testAutograd returns the shared autograd device, skipping (or failing,
// with DLCA_REQUIRE_GPU=1) as testDevice does. A test that breaks it (a
// kept error) must use its own, from newAutograd.
func testAutograd(t testing.TB) *AutogradDevice {
	t.Helper()
	d := testDevice(t)
	sharedAutograd.once.Do(func() { sharedAutograd.a = d.Autograd() })
	if err := sharedAutograd.a.Err(); err != nil {
		t.Fatalf("the shared autograd device failed in an earlier test: %v", err)
	}
	return sharedAutograd.a
}

// newAutograd returns an autograd device of its own on the shared Device,
// closed when the test ends: for tests that break it on purpose.
func newAutograd(t testing.TB) *AutogradDevice {
	t.Helper()
	a := testDevice(t).Autograd()
	t.Cleanup(a.Close)
	return a
}

// forEachDevice runs body as a subtest on the CPU and on the GPU.
func forEachDevice(t *testing.T, body func(t *testing.T, dev autograd.Device)) {
	t.Helper()
	t.Run("cpu", func(t *testing.T) { body(t, autograd.CPU) })
	t.Run("gpu", func(t *testing.T) { body(t, testAutograd(t)) })
}

// Parity tolerances: relative above 1, absolute below (see closeTo).
const (
	tolElementwise = 1e-5
	tolReduce      = 1e-4
)

// randTensor returns a float32 tensor of shape with values uniform in
// [lo, hi), the same for the same seed.
func randTensor(seed uint64, lo, hi float64, shape ...int) *autograd.Tensor {
	rng := rand.New(rand.NewPCG(seed, 7))
	t := autograd.Zeros(autograd.Float32, shape...)
	for i := range t.Data32() {
		t.Data32()[i] = float32(lo + (hi-lo)*rng.Float64())
	}
	return t
}

// toCPU reads t back, failing the test on a device error.
func toCPU(t *testing.T, x *autograd.Tensor) *autograd.Tensor {
	t.Helper()
	c, err := x.To(autograd.CPU)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// run computes f on copies of inputs on dev that require gradients, seeds
// the backward pass with seed (moved to dev) when the output requires a
// gradient (and seed is not nil), and returns the output and the inputs'
// gradients on the CPU (nil where an input got none).
func run(t *testing.T, dev autograd.Device, f func(...*autograd.Tensor) *autograd.Tensor, seed *autograd.Tensor, inputs []*autograd.Tensor) (*autograd.Tensor, []*autograd.Tensor) {
	t.Helper()
	xs := make([]*autograd.Tensor, len(inputs))
	for i, in := range inputs {
		x, err := in.Clone().To(dev)
		if err != nil {
			t.Fatal(err)
		}
		xs[i] = x.SetRequiresGrad(true)
	}
	out := f(xs...)
	if out.Device() != dev {
		t.Fatalf("output on %v, want %v", out.Device(), dev)
	}
	grads := make([]*autograd.Tensor, len(inputs))
	if seed != nil && out.RequiresGrad() {
		s, err := seed.To(dev)
		if err != nil {
			t.Fatal(err)
		}
		if err := out.BackwardWith(s); err != nil {
			t.Fatal(err)
		}
		for i, x := range xs {
			if g := x.Grad(); g != nil {
				if g.Device() != dev {
					t.Fatalf("input %d: gradient on %v, want %v", i, g.Device(), dev)
				}
				grads[i] = toCPU(t, g)
			}
		}
	}
	return toCPU(t, out), grads
}

// checkParity checks that f gives on the GPU the output and input gradients
// it gives on the CPU, within tol (relative above 1, absolute below; equal
// infinities and NaN where the CPU has them). The inputs are CPU tensors;
// the backward pass is seeded with a fixed random gradient.
func checkParity(t *testing.T, tol float64, f func(...*autograd.Tensor) *autograd.Tensor, inputs ...*autograd.Tensor) {
	t.Helper()
	for _, e := range parityErrors(t, tol, f, inputs...) {
		t.Error(e)
	}
}

// parityErrors is checkParity's comparison: it returns the differences.
func parityErrors(t *testing.T, tol float64, f func(...*autograd.Tensor) *autograd.Tensor, inputs ...*autograd.Tensor) []string {
	t.Helper()
	dev := testAutograd(t)
	probe, _ := run(t, autograd.CPU, f, nil, inputs)
	seed := randTensor(99, -1, 1, probe.Shape()...)
	want, wantGrads := run(t, autograd.CPU, f, seed, inputs)
	got, gotGrads := run(t, dev, f, seed, inputs)
	if err := dev.Err(); err != nil {
		t.Fatal(err)
	}
	errs := differences("output", got, want, tol)
	for i := range inputs {
		what := fmt.Sprintf("gradient of input %d", i)
		switch {
		case wantGrads[i] == nil && gotGrads[i] == nil:
		case wantGrads[i] == nil || gotGrads[i] == nil:
			errs = append(errs, fmt.Sprintf("%s: %v on the GPU, %v on the CPU", what, gotGrads[i], wantGrads[i]))
		default:
			errs = append(errs, differences(what, gotGrads[i], wantGrads[i], tol)...)
		}
	}
	return errs
}

// differences describes how got and want differ: in shape, or in elements
// beyond tol (relative above 1, absolute below), NaN and each infinity
// matching only themselves. It returns nil when they agree.
func differences(what string, got, want *autograd.Tensor, tol float64) []string {
	if fmt.Sprint(got.Shape()) != fmt.Sprint(want.Shape()) {
		return []string{fmt.Sprintf("%s: shape %v, want %v", what, got.Shape(), want.Shape())}
	}
	g, w := got.Float64s(), want.Float64s()
	worst, at := 0.0, -1
	for i := range g {
		var e float64
		switch {
		case math.IsNaN(w[i]) || math.IsInf(w[i], 0):
			if !(math.IsNaN(w[i]) && math.IsNaN(g[i])) && g[i] != w[i] {
				e = math.Inf(1)
			}
		default:
			e = math.Abs(g[i]-w[i]) / math.Max(math.Abs(w[i]), 1)
			if math.IsNaN(e) {
				e = math.Inf(1)
			}
		}
		if e > worst {
			worst, at = e, i
		}
	}
	if worst > tol {
		return []string{fmt.Sprintf("%s: error %.3g > %.1g at element %d of %v: got %v, want %v", what, worst, tol, at, want.Shape(), g[at], w[at])}
	}
	return nil
}

// awkwardShapes are the shapes every elementwise op is checked on: a 0-D
// scalar, sizes around the workgroup of 64, an empty tensor, several axes.
var awkwardShapes = [][]int{{}, {1}, {7}, {63}, {65}, {1000}, {0}, {2, 0, 3}, {3, 1, 5}}

// TestParityHarnessCatchesAWrongKernel checks that the harness can fail: an
// op that differs by 0.1% on the GPU, in its output or in its gradient
// alone, must be reported.
func TestParityHarnessCatchesAWrongKernel(t *testing.T) {
	dev := testAutograd(t)
	onGPU := func(x *autograd.Tensor) bool { return x.Device() == autograd.Device(dev) }
	wrongOutput := func(xs ...*autograd.Tensor) *autograd.Tensor {
		if onGPU(xs[0]) {
			return autograd.MulScalar(xs[0], 1.001)
		}
		return autograd.MulScalar(xs[0], 1)
	}
	wrongGrad := func(xs ...*autograd.Tensor) *autograd.Tensor {
		y := autograd.MulScalar(xs[0], 2)
		if onGPU(xs[0]) { // same value, a gradient 0.1% larger
			y = autograd.Sub(autograd.MulScalar(xs[0], 2.002), autograd.MulScalar(xs[0], 0.002).Detach())
		}
		return y
	}
	x := randTensor(1, 1, 2, 7)
	if errs := parityErrors(t, tolElementwise, wrongOutput, x); len(errs) == 0 {
		t.Error("a wrong output passed")
	}
	if errs := parityErrors(t, tolElementwise, wrongGrad, x); len(errs) != 1 {
		t.Errorf("a wrong gradient: %d differences, want 1 (the gradient's): %v", len(errs), errs)
	}
	if errs := parityErrors(t, tolElementwise, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.MulScalar(xs[0], 2) }, x); len(errs) != 0 {
		t.Errorf("a right op failed: %v", errs)
	}
}

// opConst matches an op code's constant in a kernel: const OP_Exp: u32 = 3u;
var opConst = regexp.MustCompile(`const OP_(\w+): u32 = (\d+)u;`)

// TestOpCodesMirrorWGSL holds each kernel's OP_ constants to the list that
// numbers its ops (autograd's table for the elementwise kernels): every op
// listed has its constant, with its index as value, and the kernel declares
// no other. It names each op that is missing, extra or numbered otherwise.
func TestOpCodesMirrorWGSL(t *testing.T) {
	for _, c := range []struct {
		shader, list string
		codes        []string
	}{
		{"unary.wgsl", "autograd.UnaryOps", autograd.UnaryOps},
		{"binary.wgsl", "autograd.BinaryOps", autograd.BinaryOps},
		{"reduce.wgsl", "gpu's reduceCodes", reduceCodes},
		{"reduce_wide.wgsl", "gpu's reduceCodes", reduceCodes},
		{"argreduce.wgsl", "gpu's argCodes", argCodes},
	} {
		consts := map[string]int{}
		for _, m := range opConst.FindAllStringSubmatch(kernelSource(t, "autograd/"+c.shader), -1) {
			consts[m[1]], _ = strconv.Atoi(m[2])
		}
		for i, op := range c.codes {
			v, ok := consts[op]
			switch {
			case !ok:
				t.Errorf("%s lacks OP_%s (%s has it at index %d)", c.shader, op, c.list, i)
			case v != i:
				t.Errorf("%s: OP_%s is %d, its index in %s is %d", c.shader, op, v, c.list, i)
			}
		}
		for op := range consts {
			if !slices.Contains(c.codes, op) {
				t.Errorf("%s declares OP_%s, which %s does not list", c.shader, op, c.list)
			}
		}
	}
}
