package gpu

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/dlca/dlca/autograd"
)

// matMulCases are awkward shapes: sizes 1, 7, 63, 65 and 1000 around the
// 32-wide tiles and 16-deep blocks, empty matrices, an empty inner
// dimension, broadcast and transposed operands, batch dimensions that
// merge and more of them than the kernel addresses.
var matMulCases = []MatMulSpec{
	{AShape: []int{1, 1}, BShape: []int{1, 1}},
	{AShape: []int{7, 63}, BShape: []int{63, 65}},
	{AShape: []int{65, 1000}, BShape: []int{1000, 7}},
	{AShape: []int{63, 65}, BShape: []int{7, 65}, TransB: true},
	{AShape: []int{33, 7}, BShape: []int{33, 17}, TransA: true},
	{AShape: []int{5, 7}, BShape: []int{9, 5}, TransA: true, TransB: true},
	{AShape: []int{0, 5}, BShape: []int{5, 3}},
	{AShape: []int{4, 0}, BShape: []int{0, 3}},
	{AShape: []int{2, 1, 7, 5}, BShape: []int{3, 5, 9}},
	{AShape: []int{5, 7}, BShape: []int{2, 3, 7, 4}},
	{AShape: []int{3, 2, 1, 4, 6, 5}, BShape: []int{2, 5, 4, 5, 2}},
	{AShape: []int{2, 3, 2, 2, 2, 4, 5}, BShape: []int{5, 3}},
	{AShape: []int{2, 1, 3, 1, 2, 4, 3}, BShape: []int{2, 1, 3, 1, 3, 2}}, // 5 batch dimensions that do not merge
	{AShape: []int{2, 3, 6, 4}, BShape: []int{1, 3, 6, 5}, TransA: true},
}

func randomData(r *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	return x
}

func specName(s MatMulSpec) string {
	return fmt.Sprintf("%v%s×%v%s", s.AShape, map[bool]string{true: "ᵀ"}[s.TransA], s.BShape, map[bool]string{true: "ᵀ"}[s.TransB])
}

// TestMatMul holds the product, and the product summed over broadcast
// batch dimensions that a gradient takes, to autograd.MatMul's.
func TestMatMul(t *testing.T) {
	k := GPU{D: testDevice(t)}
	r := rand.New(rand.NewPCG(1, 2))
	cases := append(slices.Clone(matMulCases),
		MatMulSpec{AShape: []int{2, 3, 7, 5}, BShape: []int{3, 5, 9}, OutBatch: []int{3}},
		MatMulSpec{AShape: []int{2, 3, 7, 5}, BShape: []int{2, 3, 5, 9}, OutBatch: []int{2, 1}},
		MatMulSpec{AShape: []int{4, 7, 65}, BShape: []int{4, 65, 9}, OutBatch: []int{}})
	for _, s := range cases {
		t.Run(specName(s)+fmt.Sprint(s.OutBatch), func(t *testing.T) {
			a, b := randomData(r, numel(s.AShape)), randomData(r, numel(s.BShape))
			want, _ := CPUTwin{}.MatMul(a, b, s)
			got, err := k.MatMul(a, b, s)
			if err != nil {
				t.Fatal(err)
			}
			closeTo(t, "c", got, want, 1e-4)
		})
	}
}

// TestMatMulBackward holds both input gradients of every case to those
// autograd's Backward computes on the CPU.
func TestMatMulBackward(t *testing.T) {
	d := testDevice(t)
	r := rand.New(rand.NewPCG(3, 4))
	for _, s := range matMulCases {
		t.Run(specName(s), func(t *testing.T) {
			a, b, g := randomData(r, numel(s.AShape)), randomData(r, numel(s.BShape)), randomData(r, numel(s.OutShape()))
			wantA, wantB := cpuMatMulGrads(t, a, b, g, s)
			sh := GPU{D: d}.start()
			defer sh.close()
			ba, bb, bg := sh.in("a", a, 0), sh.in("b", b, 0), sh.in("g", g, 0)
			ga, gb := sh.in("ga", nil, len(a)), sh.in("gb", nil, len(b))
			if sh.err == nil {
				sh.record(sh.p.MatMulBackward(ga, gb, bg, ba, bb, s))
			}
			gotA, gotB := sh.read(ga, len(a)), sh.read(gb, len(b))
			if sh.err != nil {
				t.Fatal(sh.err)
			}
			closeTo(t, "dA", gotA, wantA, 1e-4)
			closeTo(t, "dB", gotB, wantB, 1e-4)
		})
	}
}

// cpuMatMulGrads returns autograd's gradients of sum(g * op(A)·op(B)).
func cpuMatMulGrads(t *testing.T, a, b, g []float32, s MatMulSpec) (ga, gb []float32) {
	t.Helper()
	x := autograd.New(slices.Clone(a), s.AShape...).SetRequiresGrad(true)
	y := autograd.New(slices.Clone(b), s.BShape...).SetRequiresGrad(true)
	opx, opy := x, y
	if s.TransA {
		opx = autograd.Transpose(x, -1, -2)
	}
	if s.TransB {
		opy = autograd.Transpose(y, -1, -2)
	}
	c := autograd.MatMul(opx, opy)
	loss := autograd.Sum(autograd.Mul(c, autograd.New(slices.Clone(g), c.Shape()...)), false)
	if err := loss.Backward(); err != nil {
		t.Fatal(err)
	}
	return x.Grad().Data32(), y.Grad().Data32()
}
