package gates

import (
	"testing"

	"github.com/dlca/dlca/autograd"
)

// benchRows is the checkerboard's rows per update-network application:
// 16x16 cells x batch 2.
const benchRows = 512

// updateSizes are the checkerboard's update network: 264 inputs, then these
// layer widths.
var updateSizes = []int{256, 256, 256, 256, 256, 256, 256, 256, 256, 256, 128, 64, 32, 16, 8, 8}

// benchNet returns a stack of layers with unique wiring over in inputs and a
// random input batch of rows x in.
func benchNet(tb testing.TB, in int, sizes []int, rows int) ([]*Layer, *autograd.Tensor) {
	rng := newRNG(23)
	var net []*Layer
	for _, out := range sizes {
		w, err := UniqueWiring(in, out, rng)
		if err != nil {
			tb.Fatal(err)
		}
		net = append(net, NewLayer("bench", in, w, 1, Init{PassThrough: 2, Gaussian: true}, autograd.Float32, rng))
		in = out
	}
	x := autograd.Zeros(autograd.Float32, rows, net[0].In)
	for i := range x.Len() {
		x.SetAt(i, rng.Float64())
	}
	// In training the update network's input (perception) needs its
	// gradient too, so the backward pass computes every layer's dx.
	x.SetRequiresGrad(true)
	return net, x
}

// runNet applies the stack with forward (Layer.Forward or the reference) and,
// when backward, backpropagates the gradient seed.
func runNet(tb testing.TB, net []*Layer, x, seed *autograd.Tensor, forward func(*Layer, *autograd.Tensor) *autograd.Tensor, backward bool) {
	y := x
	for _, l := range net {
		y = forward(l, y)
	}
	if backward {
		if err := y.BackwardWith(seed); err != nil {
			tb.Fatal(err)
		}
		x.ZeroGrad()
		for _, l := range net {
			l.Logits.ZeroGrad()
		}
	}
}

func gateEvals(net []*Layer, rows int) int {
	n := 0
	for _, l := range net {
		n += l.Groups * l.Out * rows
	}
	return n
}

func benchmarkNet(b *testing.B, in int, sizes []int, forward func(*Layer, *autograd.Tensor) *autograd.Tensor, backward bool) {
	net, x := benchNet(b, in, sizes, benchRows)
	seed := autograd.Ones(x.DType(), benchRows, 1, sizes[len(sizes)-1])
	for b.Loop() {
		runNet(b, net, x, seed, forward, backward)
	}
	b.ReportMetric(float64(gateEvals(net, benchRows))*float64(b.N)/b.Elapsed().Seconds(), "gate-evals/s")
}

func fused(l *Layer, x *autograd.Tensor) *autograd.Tensor { return l.Forward(x) }

func BenchmarkLayer256Forward(b *testing.B)         { benchmarkNet(b, 256, []int{256}, fused, false) }
func BenchmarkLayer256ForwardBackward(b *testing.B) { benchmarkNet(b, 256, []int{256}, fused, true) }
func BenchmarkUpdateNetForward(b *testing.B)        { benchmarkNet(b, 264, updateSizes, fused, false) }
func BenchmarkUpdateNetForwardBackward(b *testing.B) {
	benchmarkNet(b, 264, updateSizes, fused, true)
}

// benchPerception returns the checkerboard's perception: 16 kernels
// [9,8,4,2] applied channel by channel, so rows = 512 cells x 8 channels,
// and a random 3x3 neighbourhood per row.
func benchPerception(tb testing.TB) ([]*Layer, *autograd.Tensor) {
	rng := newRNG(23)
	const kernels = 16
	net := []*Layer{NewLayer("perceive1", 9, MooreWiring(rng), kernels, DefaultInit(), autograd.Float32, rng)}
	for _, s := range [][2]int{{8, 4}, {4, 2}} {
		w, err := UniqueWiring(s[0], s[1], rng)
		if err != nil {
			tb.Fatal(err)
		}
		net = append(net, NewLayer("perceive", s[0], w, kernels, DefaultInit(), autograd.Float32, rng))
	}
	x := autograd.Zeros(autograd.Float32, 8*benchRows, 9)
	for i := range x.Len() {
		x.SetAt(i, rng.Float64())
	}
	x.SetRequiresGrad(true)
	return net, x
}

func benchmarkPerception(b *testing.B, backward bool) {
	net, x := benchPerception(b)
	seed := autograd.Ones(x.DType(), 8*benchRows, 16, 2)
	for b.Loop() {
		runNet(b, net, x, seed, fused, backward)
	}
	b.ReportMetric(float64(gateEvals(net, 8*benchRows))*float64(b.N)/b.Elapsed().Seconds(), "gate-evals/s")
}

func BenchmarkPerceptionForward(b *testing.B)         { benchmarkPerception(b, false) }
func BenchmarkPerceptionForwardBackward(b *testing.B) { benchmarkPerception(b, true) }

// The composed-autograd reference on the same work, for the speedup.

func BenchmarkReferenceLayer256Forward(b *testing.B) {
	benchmarkNet(b, 256, []int{256}, reference, false)
}
func BenchmarkReferenceLayer256ForwardBackward(b *testing.B) {
	benchmarkNet(b, 256, []int{256}, reference, true)
}
func BenchmarkReferenceUpdateNetForward(b *testing.B) {
	benchmarkNet(b, 264, updateSizes, reference, false)
}
func BenchmarkReferenceUpdateNetForwardBackward(b *testing.B) {
	benchmarkNet(b, 264, updateSizes, reference, true)
}

// BenchmarkMemCopy measures the machine's memory bandwidth with a copy of
// 64 MiB (far beyond the caches); bytes/s counts the read and the write.
func BenchmarkMemCopy(b *testing.B) {
	const n = 16 << 20
	src := make([]float32, n)
	dst := make([]float32, n)
	b.SetBytes(2 * 4 * n)
	for b.Loop() {
		copy(dst, src)
	}
}

// kernelBench is one 256->256 layer over benchRows rows on plain slices, for
// the kernels alone (no autograd, no allocation of results).
type kernelBench struct {
	d        Dims
	x, y, dx []float32
	coeffs   []float32
	sums     []float64
	w        Wiring
	rev      ReverseIndex
}

func newKernelBench(tb testing.TB) *kernelBench {
	rng := newRNG(1)
	w, err := UniqueWiring(256, 256, rng)
	if err != nil {
		tb.Fatal(err)
	}
	k := &kernelBench{d: Dims{Rows: benchRows, Groups: 1, In: 256, Out: 256, SharedInput: true}, w: w, rev: NewReverseIndex(w, 256)}
	k.x = make([]float32, k.d.XLen())
	k.dx = make([]float32, k.d.XLen())
	k.y = make([]float32, k.d.YLen())
	for i := range k.x {
		k.x[i] = rng.Float32()
	}
	logits := make([]float32, NumOps*k.d.Gates())
	for i := range logits {
		logits[i] = float32(rng.NormFloat64())
	}
	k.coeffs = make([]float32, 4*k.d.Gates())
	SoftCoeffs(make([]float32, len(logits)), k.coeffs, logits)
	k.sums = make([]float64, 4*k.d.Gates())
	return k
}

func (k *kernelBench) report(b *testing.B) {
	b.ReportMetric(float64(k.d.YLen())*float64(b.N)/b.Elapsed().Seconds(), "gate-evals/s")
}

func BenchmarkKernelForward256(b *testing.B) {
	k := newKernelBench(b)
	for b.Loop() {
		ForwardSoft(k.y, k.x, k.coeffs, k.w, k.d)
	}
	k.report(b)
}

// BenchmarkKernelBackward256 uses y as the upstream gradient.
func BenchmarkKernelBackward256(b *testing.B) {
	k := newKernelBench(b)
	for b.Loop() {
		BackwardSoft(k.dx, k.sums, k.y, k.x, k.coeffs, k.w, k.rev, k.d)
	}
	k.report(b)
}
