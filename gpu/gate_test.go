package gpu

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/gates"
)

// gateCase is one gate layer applied to a batch, with random logits, inputs
// and upstream gradient.
type gateCase struct {
	name   string
	d      gates.Dims
	w      gates.Wiring
	logits []float32 // [Groups][Out][16]
	x, gy  []float32
}

func randSlice(rng *rand.Rand, n int, lo, hi float64) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(lo + (hi-lo)*rng.Float64())
	}
	return s
}

// gateCases covers groups sharing one input (perception kernels), groups
// with their own inputs, inputs read by many gates, and more rows than a
// workgroup reduces at once.
func gateCases() []gateCase {
	rng := rand.New(rand.NewPCG(23, 0))
	mk := func(name string, d gates.Dims, w gates.Wiring) gateCase {
		return gateCase{name: name, d: d, w: w,
			logits: randSlice(rng, 16*d.Gates(), -3, 3),
			x:      randSlice(rng, d.XLen(), 0, 1),
			gy:     randSlice(rng, d.YLen(), -1, 1)}
	}
	unique, err := gates.UniqueWiring(24, 16, rng)
	if err != nil {
		panic(err)
	}
	return []gateCase{
		mk("perception shared input", gates.Dims{Rows: 70, Groups: 16, In: 9, Out: 8, SharedInput: true}, gates.MooreWiring(rng)),
		mk("groups own input", gates.Dims{Rows: 70, Groups: 5, In: 24, Out: 16}, unique),
		mk("inputs read by many gates", gates.Dims{Rows: 131, Groups: 3, In: 3, Out: 40, SharedInput: true}, gates.RandomWiring(3, 40, rng)),
		mk("many rows one group", gates.Dims{Rows: 1000, Groups: 1, In: 24, Out: 16}, unique),
	}
}

// refGate runs the one composed reference of a gate layer,
// gates.Layer.ForwardReference (autograd primitives, gradient-checked in
// package gates), in float64 on c: the output, dL/dx and dL/dlogits for
// L = sum gy*y, in the kernels' feature-major layout.
func refGate(c gateCase) (y, gx, glogits []float64) {
	d := c.d
	l := gates.NewLayer("ref", d.In, c.w, d.Groups, gates.Init{}, autograd.Float64, nil)
	for i, v := range c.logits {
		l.Logits.SetAt(i, float64(v))
	}
	// Row-major views of the feature-major arrays: x [rows, In] or
	// [rows, Groups, In], y [rows, Groups, Out].
	features := d.XLen() / d.Rows
	xShape := []int{d.Rows, d.Groups, d.In}
	if d.SharedInput {
		xShape = []int{d.Rows, d.In}
	}
	x := autograd.New64(transpose64(c.x, features, d.Rows), xShape...).SetRequiresGrad(true)
	gy := autograd.New64(transpose64(c.gy, d.Gates(), d.Rows), d.Rows, d.Groups, d.Out)
	out := l.ForwardReference(x)
	if err := autograd.Sum(autograd.Mul(out, gy), false).Backward(); err != nil {
		panic(err)
	}
	return transpose64(out.Data64(), d.Rows, d.Gates()), transpose64(x.Grad().Data64(), d.Rows, features), l.Logits.Grad().Data64()
}

// transpose64 returns the [cols][rows] transpose of m ([rows][cols]) in
// float64.
func transpose64[F float32 | float64](m []F, rows, cols int) []float64 {
	t := make([]float64, len(m))
	for r := range rows {
		for c := range cols {
			t[c*rows+r] = float64(m[r*cols+c])
		}
	}
	return t
}

func TestGateKernels(t *testing.T) {
	forEachKernels(t, func(t *testing.T, k Kernels) {
		for _, c := range gateCases() {
			t.Run(c.name, func(t *testing.T) {
				wantY, wantGX, wantGL := refGate(c)
				probs, coeffs, err := k.GateCoeffs(c.logits)
				if err != nil {
					t.Fatal(err)
				}
				y, err := k.GateForward(c.x, coeffs, c.w, c.d)
				if err != nil {
					t.Fatal(err)
				}
				closeTo(t, "GateForward", y, wantY, 1e-4)
				gx, err := k.GateBackwardInput(c.x, c.gy, coeffs, c.w, c.d)
				if err != nil {
					t.Fatal(err)
				}
				closeTo(t, "GateBackwardInput", gx, wantGX, 1e-4)
				sums, err := k.GateSums(c.x, c.gy, c.w, c.d)
				if err != nil {
					t.Fatal(err)
				}
				gl, err := k.GateLogitGrad(probs, sums)
				if err != nil {
					t.Fatal(err)
				}
				closeTo(t, "GateSums+GateLogitGrad", gl, wantGL, 1e-4)
			})
		}
	})
}

// TestGateKernelsMatchCPUTwin compares the GPU with the CPU twin directly,
// on the same coefficients, so that the only difference is the executor.
func TestGateKernelsMatchCPUTwin(t *testing.T) {
	gpu, cpu := GPU{D: testDevice(t)}, CPUTwin{}
	for _, c := range gateCases() {
		t.Run(c.name, func(t *testing.T) {
			probs, coeffs, _ := cpu.GateCoeffs(c.logits)
			gprobs, gcoeffs, err := gpu.GateCoeffs(c.logits)
			if err != nil {
				t.Fatal(err)
			}
			closeTo(t, "GateCoeffs probs", gprobs, probs, 1e-5)
			closeTo(t, "GateCoeffs coeffs", gcoeffs, coeffs, 1e-5)
			for _, f := range []struct {
				name string
				run  func(k Kernels) ([]float32, error)
			}{
				{"GateForward", func(k Kernels) ([]float32, error) { return k.GateForward(c.x, coeffs, c.w, c.d) }},
				{"GateBackwardInput", func(k Kernels) ([]float32, error) { return k.GateBackwardInput(c.x, c.gy, coeffs, c.w, c.d) }},
				{"GateSums", func(k Kernels) ([]float32, error) { return k.GateSums(c.x, c.gy, c.w, c.d) }},
				{"GateBackward", func(k Kernels) ([]float32, error) { return k.GateBackward(c.x, c.gy, coeffs, c.w, c.d) }},
			} {
				want, _ := f.run(cpu)
				got, err := f.run(gpu)
				if err != nil {
					t.Fatal(err)
				}
				closeTo(t, f.name, got, want, 1e-4)
			}
		})
	}
}

// TestGateSumsDeterministic runs the reduction twice: the fixed order must
// give the same bits.
func TestGateSumsDeterministic(t *testing.T) {
	k := GPU{D: testDevice(t)}
	c := gateCases()[3]
	a, err := k.GateSums(c.x, c.gy, c.w, c.d)
	if err != nil {
		t.Fatal(err)
	}
	b, err := k.GateSums(c.x, c.gy, c.w, c.d)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			t.Fatalf("sum %d differs between runs: %v then %v", i, a[i], b[i])
		}
	}
}

// TestGateForwardGridStride has more outputs than any device's dispatch has
// invocations, so every invocation loops over several. (On lavapipe, whose
// dispatches hold only 64 workgroups, every test does; gate_sums too, with
// more gates than workgroups.)
func TestGateForwardGridStride(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	d := gates.Dims{Rows: 17000, Groups: 16, In: 9, Out: 8, SharedInput: true}
	if d.YLen() <= maxWorkgroupsGPU*workgroupSize {
		t.Fatalf("%d outputs fit in one dispatch: the test loops nowhere", d.YLen())
	}
	w := gates.MooreWiring(rng)
	x := randSlice(rng, d.XLen(), 0, 1)
	_, coeffs, _ := CPUTwin{}.GateCoeffs(randSlice(rng, 16*d.Gates(), -3, 3))
	want, _ := CPUTwin{}.GateForward(x, coeffs, w, d)
	got, err := GPU{D: testDevice(t)}.GateForward(x, coeffs, w, d)
	if err != nil {
		t.Fatal(err)
	}
	closeTo(t, "GateForward", got, want, 1e-5)
}

// TestGateHardCoeffs holds both executors to the circuit's gates: each
// gate's coefficients are exactly the table row of the first op whose
// logit is the largest (slices.Max, slices.Index: ties go to the lowest
// op, as gates.Layer.HardOps breaks them). The logits are small integers,
// so most gates have ties, and there are more gates than lavapipe's
// dispatch has invocations.
func TestGateHardCoeffs(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	const n = 5000
	if n <= maxWorkgroupsSoftware*workgroupSize {
		t.Fatalf("%d gates fit in one software dispatch: the test loops nowhere", n)
	}
	logits := make([]float32, 16*n)
	for i := range logits {
		logits[i] = float32(rng.IntN(3))
	}
	crafted := []struct {
		logits []float32
		op     gates.Op
	}{
		{make([]float32, 16), 0}, // all equal: the first op
		{[]float32{0, 0, 0, 2, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1}, 3},
		{[]float32{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.5}, 15},
		{[]float32{-3, -3, -3, -3, -3, -3, -3, -3, -3, -3, -3, -3, -3, -3, -1, -1}, 14},
	}
	for k, c := range crafted {
		copy(logits[16*k:], c.logits)
	}
	table := gates.CoeffTable()
	var want []float32
	for k := range n {
		g := logits[16*k : 16*k+16]
		op := slices.Index(g, slices.Max(g))
		if k < len(crafted) && gates.Op(op) != crafted[k].op {
			t.Fatalf("gate %d: the test's own argmax is %d, want %d", k, op, crafted[k].op)
		}
		for _, v := range table[op] {
			want = append(want, float32(v))
		}
	}
	forEachKernels(t, func(t *testing.T, k Kernels) {
		got, err := k.GateHardCoeffs(logits)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%d coefficients, want %d", len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("gate %d coefficient %d: %v, want %v (logits %v)", i/4, i%4, got[i], want[i], logits[16*(i/4):16*(i/4)+16])
			}
		}
	})
}

// TestGateBackwardIsInputGradAndSums checks that the one-dispatch backward
// pass gives gate_backward_input's and gate_sums' bits exactly (the same
// arithmetic in the same order), on every gate case.
func TestGateBackwardIsInputGradAndSums(t *testing.T) {
	k := GPU{D: testDevice(t)}
	for _, c := range gateCases() {
		t.Run(c.name, func(t *testing.T) {
			_, coeffs, err := k.GateCoeffs(c.logits)
			if err != nil {
				t.Fatal(err)
			}
			both, err := k.GateBackward(c.x, c.gy, coeffs, c.w, c.d)
			if err != nil {
				t.Fatal(err)
			}
			gx, err := k.GateBackwardInput(c.x, c.gy, coeffs, c.w, c.d)
			if err != nil {
				t.Fatal(err)
			}
			sums, err := k.GateSums(c.x, c.gy, c.w, c.d)
			if err != nil {
				t.Fatal(err)
			}
			want := append(gx, sums...)
			if len(both) != len(want) {
				t.Fatalf("%d values, want %d (gx then the sums)", len(both), len(want))
			}
			for i := range want {
				if math.Float32bits(both[i]) != math.Float32bits(want[i]) {
					t.Fatalf("value %d (of %d gx, then the sums): %v, separate kernels %v", i, len(gx), both[i], want[i])
				}
			}
		})
	}
}
