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
}

func newKernelBench(tb testing.TB) *kernelBench {
	rng := newRNG(1)
	w, err := UniqueWiring(256, 256, rng)
	if err != nil {
		tb.Fatal(err)
	}
	k := &kernelBench{d: Dims{Rows: benchRows, Groups: 1, In: 256, Out: 256, SharedInput: true}, w: w}
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

// checkerboard is the synchronous checkerboard's network on a 16x16 grid,
// batch 2, 8 channels, with wrap-around neighbourhoods: 16 perception
// kernels [9,8,4,2] channel by channel, then the update network over
// concat(state, perception) = 264 inputs.
type checkerboard struct {
	perceive, update []*Layer
	neighbours       []int // row (cell*8+channel)*9+n of the neighbourhood matrix reads state element neighbours[...]
	state            *autograd.Tensor
}

const cbCells, cbChannels = 2 * 16 * 16, 8

func newCheckerboard(tb testing.TB) *checkerboard {
	cb := &checkerboard{}
	cb.perceive, _ = benchPerception(tb)
	cb.update, _ = benchNet(tb, 264, updateSizes, cbCells)
	for cell := range cbCells {
		b, y, x := cell/256, cell/16%16, cell%16
		for ch := range cbChannels {
			for n := range 9 {
				ny, nx := (y+n/3+15)%16, (x+n%3+15)%16
				cb.neighbours = append(cb.neighbours, (b*256+ny*16+nx)*cbChannels+ch)
			}
		}
	}
	cb.state = autograd.Zeros(autograd.Float32, cbCells, cbChannels)
	rng := newRNG(5)
	for i := range cb.state.Len() {
		cb.state.SetAt(i, float64(rng.IntN(2)))
	}
	return cb
}

// step is one synchronous step: perception, then the update network.
func (cb *checkerboard) step(s *autograd.Tensor) *autograd.Tensor {
	flat := autograd.Reshape(s, cbCells*cbChannels)
	h := autograd.Reshape(autograd.IndexSelect(flat, 0, cb.neighbours), cbCells*cbChannels, 9)
	for _, l := range cb.perceive {
		h = l.Forward(h)
	}
	h = autograd.Cat(1, s, autograd.Reshape(h, cbCells, 256))
	for _, l := range cb.update {
		h = l.Forward(h)
	}
	return autograd.Reshape(h, cbCells, cbChannels)
}

func (cb *checkerboard) gateEvals() int {
	return gateEvals(cb.perceive, cbCells*cbChannels) + gateEvals(cb.update, cbCells)
}

// BenchmarkCheckerboardIteration is one training iteration's gate work: 20
// steps unrolled from one state, every activation kept, then the backward
// pass through all of them (about 47M gate evaluations each way; the loss
// and the optimiser are left out).
func BenchmarkCheckerboardIteration(b *testing.B) {
	cb := newCheckerboard(b)
	seed := autograd.Ones(autograd.Float32, cbCells, cbChannels)
	for b.Loop() {
		s := cb.state
		for range 20 {
			s = cb.step(s)
		}
		if err := s.BackwardWith(seed); err != nil {
			b.Fatal(err)
		}
		for _, l := range append(cb.perceive, cb.update...) {
			l.Logits.ZeroGrad()
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/iter")
	b.ReportMetric(float64(20*cb.gateEvals())*float64(b.N)/b.Elapsed().Seconds(), "gate-evals/s")
}
