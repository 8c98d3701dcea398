package gates

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/dlca/dlca/autograd"
)

// transpose returns the [cols][rows] transpose of m, which is [rows][cols].
// A row-major x [Rows, (Groups,) In] is a [Rows][inputs] matrix whose
// transpose is the feature-major x, and likewise for y and dL/dy.
func transpose[F Float](m []F, rows, cols int) []F {
	t := make([]F, len(m))
	for r := range rows {
		for c := range cols {
			t[c*rows+r] = m[r*cols+c]
		}
	}
	return t
}

// kernelCase is a layer case as plain slices, row-major: the input x, the
// upstream gradient g (= dL/dy for L = sum g*y), and the probabilities and
// coefficients of random logits.
type kernelCase[F Float] struct {
	d                   Dims
	w                   Wiring
	x, g, probs, coeffs []F
	inputs, gates       int
}

func newKernelCase[F Float](c layerCase, rows int, seed uint64) kernelCase[F] {
	rng := newRNG(seed)
	k := kernelCase[F]{w: c.wiring(rng), d: Dims{Rows: rows, Groups: c.groups, In: c.in, Out: c.out, SharedInput: c.shared}}
	k.inputs, k.gates = k.d.inputs(), k.d.Gates()
	logits := make([]F, NumOps*k.gates)
	for i := range logits {
		logits[i] = F(2 * rng.NormFloat64())
	}
	k.probs, k.coeffs = make([]F, len(logits)), make([]F, 4*k.gates)
	SoftCoeffs(k.probs, k.coeffs, logits)
	k.x, k.g = make([]F, k.d.XLen()), make([]F, k.d.YLen())
	for i := range k.x {
		k.x[i] = F(rng.Float64())
	}
	for i := range k.g {
		k.g[i] = F(rng.NormFloat64())
	}
	return k
}

// featureMajor runs ForwardSoftFM and BackwardSoftFM on the transposed
// case and returns y and dx transposed back to row-major.
func (k kernelCase[F]) featureMajor() (y, dx []F, sums []float64) {
	rows := k.d.Rows
	yT, dxT, sums := make([]F, k.d.YLen()), make([]F, k.d.XLen()), make([]float64, 4*k.gates)
	ForwardSoftFM(yT, transpose(k.x, rows, k.inputs), k.coeffs, k.w, k.d)
	// NOTE: dx starts as garbage: the kernel must overwrite it, not add.
	for i := range dxT {
		dxT[i] = 7
	}
	BackwardSoftFM(dxT, sums, transpose(k.g, rows, k.gates), transpose(k.x, rows, k.inputs), k.coeffs, k.w, k.d)
	return transpose(yT, k.gates, rows), transpose(dxT, k.inputs, rows), sums
}

func float64s[F Float](v []F) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// dataOf returns t's storage as []F; F must match t's dtype.
func dataOf[F Float](t *autograd.Tensor) []F {
	if t.DType() == autograd.Float64 {
		return any(t.Data64()).([]F)
	}
	return any(t.Data32()).([]F)
}

// fmGradsOf is gradsOf (reference_test.go) through the feature-major
// kernels: the same layer, input and dL/dy, then SoftCoeffs, ForwardSoftFM,
// BackwardSoftFM and LogitGrads on plain slices.
func fmGradsOf[F Float](c layerCase, dt autograd.DType) (y, dx, dw []float64) {
	l, xt := c.build(dt, 11)
	d := Dims{Rows: c.rows, Groups: c.groups, In: c.in, Out: c.out, SharedInput: c.shared}
	rng := newRNG(12)
	g := make([]F, d.YLen())
	for i := range g {
		g[i] = F(rng.NormFloat64())
	}
	logits := dataOf[F](l.Logits)
	probs, coeffs := make([]F, len(logits)), make([]F, 4*d.Gates())
	SoftCoeffs(probs, coeffs, logits)
	x := transpose(dataOf[F](xt), d.Rows, d.inputs())
	yT, dxT, sums := make([]F, d.YLen()), make([]F, d.XLen()), make([]float64, 4*d.Gates())
	ForwardSoftFM(yT, x, coeffs, l.Wiring, d)
	BackwardSoftFM(dxT, sums, transpose(g, d.Rows, d.Gates()), x, coeffs, l.Wiring, d)
	dlogits := make([]F, len(logits))
	LogitGrads(dlogits, probs, sums)
	return float64s(transpose(yT, d.Gates(), d.Rows)), float64s(transpose(dxT, d.inputs(), d.Rows)), float64s(dlogits)
}

// TestFeatureMajorMatchesReference holds the feature-major kernels to the
// layer composed from autograd primitives (Layer.ForwardReference), with
// the tolerances of TestFusedMatchesReference.
func TestFeatureMajorMatchesReference(t *testing.T) {
	for _, c := range layerCases {
		for _, dt := range []autograd.DType{autograd.Float64, autograd.Float32} {
			t.Run(fmt.Sprintf("%s/%v", c.name, dt), func(t *testing.T) {
				gTol, fm := 1e-5, fmGradsOf[float64]
				if dt == autograd.Float32 {
					gTol, fm = 1e-4, fmGradsOf[float32]
				}
				y, dx, dw := fm(c, dt)
				ry, rdx, rdw := gradsOf(c, dt, reference)
				compare(t, "y", y, ry, 1e-6, 0)
				compare(t, "dx", dx, rdx, gTol, gTol)
				compare(t, "dlogits", dw, rdw, gTol, gTol)
			})
		}
	}
}

// TestFeatureMajorFiniteDifferences checks BackwardSoftFM in float64 against
// central differences of L = sum(g * y): dx against perturbations of x, and
// the sums (dL/dcoeffs) against perturbations of the coefficients.
func TestFeatureMajorFiniteDifferences(t *testing.T) {
	const eps, tol = 1e-6, 1e-7
	for _, c := range layerCases {
		t.Run(c.name, func(t *testing.T) {
			k := newKernelCase[float64](c, c.rows, 41)
			x := transpose(k.x, k.d.Rows, k.inputs)
			g := transpose(k.g, k.d.Rows, k.gates)
			loss := func() float64 {
				y := make([]float64, k.d.YLen())
				ForwardSoftFM(y, x, k.coeffs, k.w, k.d)
				s := 0.0
				for i, v := range y {
					s += g[i] * v
				}
				return s
			}
			central := func(v *float64) float64 {
				old := *v
				*v = old + eps
				up := loss()
				*v = old - eps
				down := loss()
				*v = old
				return (up - down) / (2 * eps)
			}
			dx, sums := make([]float64, len(x)), make([]float64, 4*k.gates)
			BackwardSoftFM(dx, sums, g, x, k.coeffs, k.w, k.d)
			for i := range x {
				if want := central(&x[i]); math.Abs(dx[i]-want) > tol*(1+math.Abs(want)) {
					t.Fatalf("dx[%d] = %v, finite difference %v", i, dx[i], want)
				}
			}
			for i := range k.coeffs {
				if want := central(&k.coeffs[i]); math.Abs(sums[i]-want) > tol*(1+math.Abs(want)) {
					t.Fatalf("sums[%d] = %v, finite difference %v", i, sums[i], want)
				}
			}
		})
	}
}

// TestFeatureMajorDeterministicAcrossWorkers runs the feature-major kernels
// with 1, 2 and 3 workers over 703 rows (five full blocks and an odd tail,
// so spans of 6, 3 and 2 blocks) and wants identical bits.
func TestFeatureMajorDeterministicAcrossWorkers(t *testing.T) {
	c := layerCase{name: "det", in: 64, out: 64, groups: 2, shared: false, wiring: func(r *rand.Rand) Wiring { w, _ := UniqueWiring(64, 64, r); return w }}
	k := newKernelCase[float32](c, 703, 5)
	run := func(procs int) ([]float32, []float32, []float64) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		return k.featureMajor()
	}
	y1, dx1, s1 := run(1)
	for _, procs := range []int{2, 3} {
		y, dx, s := run(procs)
		if !slices.Equal(y, y1) || !slices.Equal(dx, dx1) || !slices.Equal(s, s1) {
			t.Errorf("%d workers differ from 1 worker", procs)
		}
	}
}

func TestFeatureMajorBadInput(t *testing.T) {
	d := Dims{Rows: 2, Groups: 1, In: 3, Out: 2, SharedInput: true}
	w := Wiring{A: []int32{0, 1}, B: []int32{2, 2}}
	x, y, c := make([]float32, 6), make([]float32, 4), make([]float32, 8)
	ForwardSoftFM(y, x, c, w, d) // fits
	BackwardSoftFM(x, nil, y, x, c, w, d)
	mustPanic(t, "x length", func() { ForwardSoftFM(y, x[:5], c, w, d) }, "gates: ForwardSoftFM", "x has 5 elements, want 6")
	mustPanic(t, "wiring range", func() { ForwardSoftFM(y, x, c, Wiring{A: []int32{0, 3}, B: []int32{1, 1}}, d) }, "gates: ForwardSoftFM: wiring of gate 1 reads input 3")
	mustPanic(t, "dy length", func() { BackwardSoftFM(x, nil, y[:3], x, c, w, d) }, "gates: BackwardSoftFM", "y has 3 elements, want 4")
	mustPanic(t, "dx length", func() { BackwardSoftFM(x[:2], nil, y, x, c, w, d) }, "gates: BackwardSoftFM: dx has 2 elements")
	mustPanic(t, "sums length", func() { BackwardSoftFM(x, make([]float64, 3), y, x, c, w, d) }, "sums has 3 elements, want 8")
}

// One gate, a AND b, over two input features of three rows each: the
// relaxed AND is a*b.
func ExampleForwardSoftFM() {
	w := Wiring{A: []int32{0}, B: []int32{1}}
	d := Dims{Rows: 3, Groups: 1, In: 2, Out: 1, SharedInput: true}
	x := []float64{
		0, 1, 0.5, // feature 0 (a) in rows 0, 1, 2
		1, 1, 0.5, // feature 1 (b)
	}
	coeffs := And.Coeffs()
	y := make([]float64, 3)
	ForwardSoftFM(y, x, coeffs[:], w, d)
	fmt.Println(y)
	// Output: [0 1 0.25]
}

// The feature-major kernels on kernelBench's 256->256 layer over 512 rows
// (x and y read as feature-major; the values do not matter for the time).

func BenchmarkKernelForwardFM256(b *testing.B) {
	k := newKernelBench(b)
	for b.Loop() {
		ForwardSoftFM(k.y, k.x, k.coeffs, k.w, k.d)
	}
	k.report(b)
}

// BenchmarkKernelBackwardFM256 uses y as the upstream gradient.
func BenchmarkKernelBackwardFM256(b *testing.B) {
	k := newKernelBench(b)
	for b.Loop() {
		BackwardSoftFM(k.dx, k.sums, k.y, k.x, k.coeffs, k.w, k.d)
	}
	k.report(b)
}

// TestTransposeInto holds transposeInto to the test's plain transpose on
// shapes that leave partial tiles, taller and wider than long.
func TestTransposeInto(t *testing.T) {
	for _, s := range [][2]int{{1, 1}, {37, 5}, {5, 37}, {33, 17}, {16, 16}, {0, 3}} {
		rows, cols := s[0], s[1]
		src := make([]float32, rows*cols)
		for i := range src {
			src[i] = float32(i)
		}
		dst := make([]float32, len(src))
		transposeInto(dst, src, rows, cols)
		if want := transpose(src, rows, cols); !slices.Equal(dst, want) {
			t.Errorf("%dx%d: %v, want %v", rows, cols, dst, want)
		}
	}
}
