package gpu

import (
	"math"
	"math/rand/v2"
	"testing"

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

// softmax64 returns softmax(w) in float64.
func softmax64(w []float32) []float64 {
	m := math.Inf(-1)
	for _, v := range w {
		m = math.Max(m, float64(v))
	}
	p := make([]float64, len(w))
	s := 0.0
	for i, v := range w {
		p[i] = math.Exp(float64(v) - m)
		s += p[i]
	}
	for i := range p {
		p[i] /= s
	}
	return p
}

// refGate is the readable float64 reference of a gate layer, straight from
// the paper's definition y = sum_i p_i op_i(a, b): the output, dL/dx and
// dL/dlogits for L = sum gy*y. It uses Op.Relaxed and Op.Grad, not the
// four-coefficient form the kernels use.
func refGate(c gateCase) (y, gx, glogits []float64) {
	d := c.d
	y = make([]float64, d.YLen())
	gx = make([]float64, d.XLen())
	glogits = make([]float64, 16*d.Gates())
	for r := range d.Rows {
		for g := range d.Groups {
			xo := (r*d.Groups + g) * d.In
			if d.SharedInput {
				xo = r * d.In
			}
			for k := range d.Out {
				gate := g*d.Out + k
				p := softmax64(c.logits[16*gate : 16*gate+16])
				ia, ib := xo+int(c.w.A[k]), xo+int(c.w.B[k])
				a, b := float64(c.x[ia]), float64(c.x[ib])
				out := (r*d.Groups+g)*d.Out + k
				gy := float64(c.gy[out])
				var yk, da, db float64
				ops := make([]float64, 16)
				for i := range 16 {
					ops[i] = gates.Op(i).Relaxed(a, b)
					dai, dbi := gates.Op(i).Grad(a, b)
					yk += p[i] * ops[i]
					da += p[i] * dai
					db += p[i] * dbi
				}
				y[out] = yk
				gx[ia] += gy * da
				gx[ib] += gy * db
				// dy/dw_i = p_i (op_i - y)
				for i := range 16 {
					glogits[16*gate+i] += gy * p[i] * (ops[i] - yk)
				}
			}
		}
	}
	return y, gx, glogits
}

// TestRefGateFiniteDifferences checks the reference itself against central
// differences of its own output in float64, so the kernels are held to a
// reference that is right.
func TestRefGateFiniteDifferences(t *testing.T) {
	c := gateCases()[2]
	c.d.Rows = 4
	c.x, c.gy = c.x[:c.d.XLen()], c.gy[:c.d.YLen()]
	loss := func(c gateCase) float64 {
		y, _, _ := refGate(c)
		s := 0.0
		for i, v := range y {
			s += float64(c.gy[i]) * v
		}
		return s
	}
	_, gx, gl := refGate(c)
	const h = 1e-3
	check := func(what string, v []float32, grad []float64) {
		for i := range v {
			orig := v[i]
			v[i] = orig + h
			up := loss(c)
			v[i] = orig - h
			down := loss(c)
			v[i] = orig
			// NOTE: the perturbed value is float32, so the step actually
			// taken is float32(orig+h)-float32(orig-h), not exactly 2h.
			if num := (up - down) / (2 * h); math.Abs(num-grad[i]) > 1e-3*math.Max(1, math.Abs(num)) {
				t.Errorf("%s[%d]: reference %v, central difference %v", what, i, grad[i], num)
			}
		}
	}
	check("x", c.x, gx)
	check("logits", c.logits, gl)
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
	gpu, cpu := GPU{D: testDevice(t)}, CPU{}
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
	_, coeffs, _ := CPU{}.GateCoeffs(randSlice(rng, 16*d.Gates(), -3, 3))
	want, _ := CPU{}.GateForward(x, coeffs, w, d)
	got, err := GPU{D: testDevice(t)}.GateForward(x, coeffs, w, d)
	if err != nil {
		t.Fatal(err)
	}
	closeTo(t, "GateForward", got, want, 1e-5)
}
