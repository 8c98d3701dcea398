package gpu

import (
	"fmt"
	"math/rand/v2"
	"testing"
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

// TestMatMulSummedBatch holds the product summed over broadcast batch
// dimensions (MatMulSpec.OutBatch, which the convolution's weight gradient
// uses and autograd's ops do not reach) to autograd.MatMul's, summed on the
// CPU. The products themselves, forward and both gradients, are held to the
// CPU's by TestMatMulParity, on matMulCases.
func TestMatMulSummedBatch(t *testing.T) {
	k := GPU{D: testDevice(t)}
	r := rand.New(rand.NewPCG(1, 2))
	for _, s := range []MatMulSpec{
		{AShape: []int{2, 3, 7, 5}, BShape: []int{3, 5, 9}, OutBatch: []int{3}},
		{AShape: []int{2, 3, 7, 5}, BShape: []int{2, 3, 5, 9}, OutBatch: []int{2, 1}},
		{AShape: []int{4, 7, 65}, BShape: []int{4, 65, 9}, OutBatch: []int{}},
		{AShape: []int{2, 6, 4}, BShape: []int{2, 5, 4}, TransB: true, OutBatch: []int{2}},
	} {
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
