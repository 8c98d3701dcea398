package gates

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/dlca/dlca/autograd"
)

// layerCase is a layer shape to test: a shared input (every group reads the
// same row) or one row per group, and wiring where inputs feed many gates.
type layerCase struct {
	name            string
	in, out, groups int
	rows            int
	shared          bool
	wiring          func(rng *rand.Rand) Wiring
}

var layerCases = []layerCase{
	{name: "unique", in: 6, out: 4, groups: 1, rows: 5, shared: true, wiring: func(r *rand.Rand) Wiring { w, _ := UniqueWiring(6, 4, r); return w }},
	// 3 inputs read by 10 gates each, some gates reading one input twice.
	{name: "fan-out", in: 3, out: 15, groups: 1, rows: 4, shared: true, wiring: func(r *rand.Rand) Wiring { return RandomWiring(3, 15, r) }},
	{name: "groups-shared-input", in: 9, out: 8, groups: 3, rows: 4, shared: true, wiring: func(r *rand.Rand) Wiring { return MooreWiring(r) }},
	{name: "groups-own-input", in: 8, out: 4, groups: 3, rows: 3, shared: false, wiring: func(r *rand.Rand) Wiring { w, _ := UniqueWiring(8, 4, r); return w }},
	{name: "same-input-twice", in: 2, out: 3, groups: 2, rows: 3, shared: false, wiring: func(*rand.Rand) Wiring {
		return Wiring{A: []int32{0, 1, 1}, B: []int32{0, 0, 1}}
	}},
}

// build returns the case's layer with random logits and a random input.
func (c layerCase) build(dtype autograd.DType, seed uint64) (*Layer, *autograd.Tensor) {
	rng := newRNG(seed)
	l := NewLayer(c.name, c.in, c.wiring(rng), c.groups, Init{Gaussian: true, Std: 2}, dtype, rng)
	shape := []int{c.rows, c.groups, c.in}
	if c.shared {
		shape = []int{c.rows, c.in}
	}
	x := autograd.Zeros(dtype, shape...)
	for i := range x.Len() {
		x.SetAt(i, rng.Float64())
	}
	x.SetRequiresGrad(true)
	return l, x
}

// naiveForward computes the layer's output in float64 straight from the
// definition, y = sum_i softmax(w)_i op_i(a, b), with the paper's relaxed
// forms (paperOps), independently of the coefficient kernels.
func naiveForward(l *Layer, x *autograd.Tensor) []float64 {
	shared := x.Dim() == 2
	rows := x.Size(0)
	y := make([]float64, 0, rows*l.Groups*l.Out)
	for r := range rows {
		for g := range l.Groups {
			for k := range l.Out {
				off := r * l.In
				if !shared {
					off = (r*l.Groups + g) * l.In
				}
				a, b := x.At(off+int(l.Wiring.A[k])), x.At(off+int(l.Wiring.B[k]))
				w := l.Logits.Float64s()[(g*l.Out+k)*NumOps : (g*l.Out+k+1)*NumOps]
				z := 0.0
				for _, v := range w {
					z += math.Exp(v)
				}
				v := 0.0
				for i, po := range paperOps {
					v += math.Exp(w[i]) / z * po.relaxed(a, b)
				}
				y = append(y, v)
			}
		}
	}
	return y
}

func TestForwardMatchesDefinition(t *testing.T) {
	for _, c := range layerCases {
		for _, dt := range []autograd.DType{autograd.Float64, autograd.Float32} {
			t.Run(fmt.Sprintf("%s/%v", c.name, dt), func(t *testing.T) {
				l, x := c.build(dt, 1)
				y := l.Forward(x)
				if want := []int{c.rows, c.groups, c.out}; !slices.Equal(y.Shape(), want) {
					t.Fatalf("shape %v, want %v", y.Shape(), want)
				}
				tol := 1e-12
				if dt == autograd.Float32 {
					tol = 1e-6
				}
				for i, want := range naiveForward(l, x) {
					if math.Abs(y.At(i)-want) > tol {
						t.Fatalf("y[%d] = %v, want %v", i, y.At(i), want)
					}
				}
			})
		}
	}
}

// TestGradientFiniteDifferences checks the fused backward in float64 against
// central differences of L = sum(r * y) for a fixed random r, so that
// dL/dy = r.
func TestGradientFiniteDifferences(t *testing.T) {
	for _, c := range layerCases {
		t.Run(c.name, func(t *testing.T) {
			l, x := c.build(autograd.Float64, 2)
			rng := newRNG(3)
			r := make([]float64, c.rows*c.groups*c.out)
			for i := range r {
				r[i] = rng.NormFloat64()
			}
			loss := func() float64 {
				var s float64
				for i, v := range l.Forward(x.NoGrad()).Data64() {
					s += r[i] * v
				}
				return s
			}
			if err := l.Forward(x).BackwardWith(autograd.New64(slices.Clone(r), c.rows, c.groups, c.out)); err != nil {
				t.Fatal(err)
			}
			for _, p := range []struct {
				name string
				t    *autograd.Tensor
			}{{"x", x}, {"logits", l.Logits}} {
				d := p.t.Data64()
				for i := range d {
					const h = 1e-6
					v := d[i]
					d[i] = v + h
					up := loss()
					d[i] = v - h
					down := loss()
					d[i] = v
					num := (up - down) / (2 * h)
					if got := p.t.Grad().At(i); math.Abs(got-num) > 1e-7*(1+math.Abs(num)) {
						t.Errorf("d/d%s[%d] = %v, finite differences %v", p.name, i, got, num)
					}
				}
			}
		})
	}
}

// TestHardEqualsSoftOnBits: with one op's logit far above the others, the
// soft layer on {0,1} inputs equals the hard evaluation, for every op.
func TestHardEqualsSoftOnBits(t *testing.T) {
	w := Wiring{A: []int32{0, 0, 1, 1}, B: []int32{0, 1, 0, 1}} // the four corners
	for o := Op(0); o < NumOps; o++ {
		l := NewLayer(o.String(), 2, w, 1, Init{}, autograd.Float64, nil)
		for k := range w.Len() {
			l.Logits.SetAt(k*NumOps+int(o), 100)
		}
		if ops := l.HardOps(); slices.ContainsFunc(ops, func(h Op) bool { return h != o }) {
			t.Fatalf("HardOps = %v, want all %v", ops, o)
		}
		bits := make([]bool, 4)
		words := make([]uint64, 4)
		for _, x := range [][2]bool{{false, false}, {false, true}, {true, false}, {true, true}} {
			y := l.Forward(autograd.New64([]float64{b2f(x[0]), b2f(x[1])}, 1, 2))
			EvalBools(bits, x[:], l.HardOps(), w)
			EvalWords(words, []uint64{-uint64(b2f(x[0])), -uint64(b2f(x[1]))}, l.HardOps(), w)
			for k := range 4 {
				a, b := x[w.A[k]], x[w.B[k]]
				want := b2f(o.Eval(a, b))
				if math.Abs(y.At(k)-want) > 1e-12 || b2f(bits[k]) != want || words[k] != -uint64(want) {
					t.Errorf("%v gate %d at (%v,%v): soft %v, bool %v, word %#x, want %v", o, k, a, b, y.At(k), bits[k], words[k], want)
				}
			}
		}
	}
}

func b2f(v bool) float64 {
	if v {
		return 1
	}
	return 0
}

// TestDeterministicAcrossWorkers runs the same forward and backward with 1,
// 2 and 3 workers and wants identical bits.
func TestDeterministicAcrossWorkers(t *testing.T) {
	run := func(procs int) ([]float32, []float32, []float32) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		rng := newRNG(5)
		w, _ := UniqueWiring(64, 64, rng)
		l := NewLayer("det", 64, w, 2, Init{Gaussian: true}, autograd.Float32, rng)
		x := autograd.Zeros(autograd.Float32, 703, 64)
		for i := range x.Len() {
			x.SetAt(i, rng.Float64())
		}
		x.SetRequiresGrad(true)
		y := l.Forward(x)
		g := autograd.ZerosLike(y)
		for i := range g.Len() {
			g.SetAt(i, rng.NormFloat64())
		}
		if err := y.BackwardWith(g); err != nil {
			t.Fatal(err)
		}
		return y.Data32(), x.Grad().Data32(), l.Logits.Grad().Data32()
	}
	y1, dx1, dw1 := run(1)
	for _, procs := range []int{2, 3} {
		y, dx, dw := run(procs)
		if !slices.Equal(y, y1) || !slices.Equal(dx, dx1) || !slices.Equal(dw, dw1) {
			t.Errorf("%d workers differ from 1 worker", procs)
		}
	}
}

func TestInit(t *testing.T) {
	w, _ := UniqueWiring(4, 2, newRNG(1))
	l := NewLayer("init", 4, w, 3, DefaultInit(), autograd.Float32, nil)
	if !slices.Equal(l.Logits.Shape(), []int{3, 2, NumOps}) || !l.Logits.RequiresGrad() {
		t.Fatalf("logits %v, requires grad %v", l.Logits.Shape(), l.Logits.RequiresGrad())
	}
	for i := range l.Logits.Len() {
		want := 0.0
		if Op(i%NumOps) == A {
			want = 10
		}
		if l.Logits.At(i) != want {
			t.Fatalf("logit %d = %v, want %v", i, l.Logits.At(i), want)
		}
	}
	if ops := l.HardOps(); CountActive(ops) != 0 || l.ActiveGates() != 0 || Histogram(ops)[A] != 6 {
		t.Errorf("fresh layer: ops %v, %d active", ops, l.ActiveGates())
	}
	// p(A) = e^10 / (e^10 + 15) as the paper says.
	y := l.Forward(autograd.New([]float32{1, 0, 1, 0}, 1, 4))
	p := math.Exp(10) / (math.Exp(10) + 15)
	if math.Abs(p-0.9993) > 1e-4 {
		t.Fatalf("p(A) = %v", p)
	}
	_ = y
	g := NewLayer("gauss", 4, w, 1, Init{Gaussian: true, Std: 0.5}, autograd.Float64, newRNG(9))
	g2 := NewLayer("gauss", 4, w, 1, Init{Gaussian: true, Std: 0.5}, autograd.Float64, newRNG(9))
	if !slices.Equal(g.Logits.Data64(), g2.Logits.Data64()) || g.Logits.Data64()[0] == 0 {
		t.Error("Gaussian init is not reproducible or not random")
	}
}

func TestActiveGatesAndHistogram(t *testing.T) {
	w := Wiring{A: []int32{0, 1, 0, 1}, B: []int32{1, 0, 1, 0}}
	l := NewLayer("count", 2, w, 2, Init{}, autograd.Float64, nil)
	set := []Op{A, B, Xor, And, Xor, A, B, True} // group-major
	for k, o := range set {
		l.Logits.SetAt(k*NumOps+int(o), 1)
	}
	if got := l.HardOps(); !slices.Equal(got, set) {
		t.Errorf("HardOps = %v, want %v", got, set)
	}
	if got := l.ActiveGates(); got != 4 {
		t.Errorf("ActiveGates = %d, want 4 (XOR, AND, XOR, TRUE)", got)
	}
	h := Histogram(set)
	if h[A] != 2 || h[B] != 2 || h[Xor] != 2 || h[And] != 1 || h[True] != 1 || h[Or] != 0 {
		t.Errorf("Histogram = %v", h)
	}
}

// TestConfidences: the probability of each gate's top op, against the
// softmax worked by hand: uniform logits give 1/16, the paper's
// initialisation e^10/(e^10+15), two tied top ops 1/2 at most, and the
// softmax of huge logits does not overflow.
func TestConfidences(t *testing.T) {
	w := Wiring{A: []int32{0, 1, 0, 1}, B: []int32{1, 0, 1, 0}}
	l := NewLayer("conf", 2, w, 1, Init{}, autograd.Float64, nil)
	set := func(gate int, logits map[Op]float64) {
		for o, v := range logits {
			l.Logits.SetAt(gate*NumOps+int(o), v)
		}
	}
	set(1, map[Op]float64{A: 10})
	set(2, map[Op]float64{Xor: 3, And: 3})
	set(3, map[Op]float64{Or: 1000, Nand: 999})
	want := []float64{
		1.0 / 16,
		math.Exp(10) / (math.Exp(10) + 15),
		math.Exp(3) / (2*math.Exp(3) + 14),
		1 / (1 + math.Exp(-1) + 14*math.Exp(-1000)),
	}
	got := l.Confidences()
	if len(got) != len(want) {
		t.Fatalf("%d confidences for %d gates", len(got), len(want))
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Errorf("gate %d: confidence %v, want %v", i, got[i], want[i])
		}
	}
}

// mustPanic runs f and checks that it panics with a message containing each
// of want.
func mustPanic(t *testing.T, name string, f func(), want ...string) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if r == nil {
			t.Errorf("%s: no panic", name)
			return
		}
		msg := fmt.Sprint(r)
		for _, w := range want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: panic %q does not mention %q", name, msg, w)
			}
		}
	}()
	f()
}

func TestBadInput(t *testing.T) {
	w := Wiring{A: []int32{0, 2}, B: []int32{1, 3}}
	fresh := func() *Layer { return NewLayer("L7", 4, w, 2, DefaultInit(), autograd.Float32, nil) }
	x := autograd.Zeros(autograd.Float32, 3, 4)

	mustPanic(t, "wiring out of range", func() {
		NewLayer("L1", 3, Wiring{A: []int32{0, 3}, B: []int32{1, 2}}, 1, DefaultInit(), autograd.Float32, nil)
	}, `gates: layer "L1": wiring of gate 1 reads input 3, out of range for 3 inputs`)
	mustPanic(t, "input width", func() { fresh().Forward(autograd.Zeros(autograd.Float32, 3, 5)) }, `"L7"`, "[3 5]")
	mustPanic(t, "input groups", func() { fresh().Forward(autograd.Zeros(autograd.Float32, 3, 3, 4)) }, `"L7"`, "[3 3 4]")
	mustPanic(t, "input dtype", func() { fresh().Forward(autograd.Zeros(autograd.Float64, 3, 4)) }, `"L7"`, "float64")

	l := fresh()
	l.Logits = autograd.Zeros(autograd.Float32, 2, 2, 15)
	mustPanic(t, "logits shape", func() { l.Forward(x) }, `"L7"`, "logits of shape [2 2 15]")
	if err := l.Validate(); err == nil || !strings.Contains(err.Error(), "logits of shape") {
		t.Errorf("Validate: %v", err)
	}

	l = fresh()
	l.Forward(x) // caches the coefficients of the finite logits
	l.Logits.SetAt(NumOps+5, math.NaN())
	mustPanic(t, "NaN logit", func() { l.Forward(x) }, `"L7"`, "group 0 gate 1", "NaN")
	if err := l.Validate(); err == nil || !strings.Contains(err.Error(), "NaN at group 0 gate 1 op B") {
		t.Errorf("Validate: %v", err)
	}
	l.Logits.SetAt(NumOps+5, math.Inf(1))
	mustPanic(t, "infinite logit", func() { l.Forward(x) }, `"L7"`, "group 0 gate 1")

	l = fresh()
	l.Wiring.B[1] = 9
	if err := l.Validate(); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("Validate of bad wiring: %v", err)
	}
	mustPanic(t, "wiring changed before first Forward", func() { l.Forward(x) }, `"L7"`, "out of range")
	if err := fresh().Validate(); err != nil {
		t.Errorf("Validate of a good layer: %v", err)
	}
	mustPanic(t, "EvalWords lengths", func() { EvalWords(make([]uint64, 2), make([]uint64, 4), []Op{A}, w) }, "gates: EvalWords")
}

func TestKernelBadInput(t *testing.T) {
	d := Dims{Rows: 2, Groups: 1, In: 3, Out: 2, SharedInput: true}
	w := Wiring{A: []int32{0, 1}, B: []int32{2, 2}}
	x, y, c := make([]float32, 6), make([]float32, 4), make([]float32, 8)
	ForwardSoftFM(y, x, c, w, d) // fits
	mustPanic(t, "coeffs length", func() { ForwardSoftFM(y, x, c[:4], w, d) }, "coeffs has 4 elements, want 8")
	mustPanic(t, "wiring length", func() { ForwardSoftFM(y, x, c, Wiring{A: []int32{0}, B: []int32{1}}, d) }, "wiring of 1 gates for 2 outputs")
	mustPanic(t, "LogitGrads", func() { LogitGrads(make([]float32, 32), make([]float32, 32), make([]float64, 4)) }, "gates: LogitGrads")

	logits := make([]float64, 3*NumOps)
	logits[NumOps+7] = math.NaN()
	logits[2*NumOps] = math.Inf(1)
	if bad := SoftCoeffs(make([]float64, 3*NumOps), make([]float64, 12), logits); bad != 1 {
		t.Errorf("SoftCoeffs: first bad gate %d, want 1", bad)
	}
}

func TestEmptyBatch(t *testing.T) {
	w, _ := UniqueWiring(4, 2, newRNG(1))
	l := NewLayer("empty", 4, w, 1, DefaultInit(), autograd.Float32, nil)
	x := autograd.Zeros(autograd.Float32, 0, 4).SetRequiresGrad(true)
	y := l.Forward(x)
	if !slices.Equal(y.Shape(), []int{0, 1, 2}) {
		t.Fatalf("shape %v", y.Shape())
	}
	if err := y.BackwardWith(autograd.ZerosLike(y)); err != nil {
		t.Fatal(err)
	}
	if g := l.Logits.Grad(); g == nil || g.HasNaN() || slices.ContainsFunc(g.Float64s(), func(v float64) bool { return v != 0 }) {
		t.Errorf("logit gradient of an empty batch: %v", g)
	}
}
