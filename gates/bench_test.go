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
