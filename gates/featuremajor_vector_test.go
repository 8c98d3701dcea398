package gates

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// withVector runs f with useVector set to on, then restores it.
func withVector(on bool, f func()) {
	old := useVector
	useVector = on
	defer func() { useVector = old }()
	f()
}

// randVec returns n uniform values in [-1, 1).
func randVec(rng *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = 2*rng.Float32() - 1
	}
	return v
}

// sameBits reports the first index where got and want differ bit for bit.
func sameBits(got, want []float32) (int, bool) {
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			return i, false
		}
	}
	return -1, len(got) == len(want)
}

// vectorLengths covers every tail of the eight-row loops and long blocks.
func vectorLengths() []int {
	n := make([]int, 0, 45)
	for i := range 41 {
		n = append(n, i)
	}
	return append(n, 127, 128, 1000, 1003, 1031)
}

// TestVectorForwardFMBitIdentical checks forwardGateFM's vector loop (where
// the CPU has one) against its Go loop bit for bit. On other builds both
// runs take the Go loop.
func TestVectorForwardFMBitIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 0))
	for _, n := range vectorLengths() {
		xa, xb, c := randVec(rng, n), randVec(rng, n), randVec(rng, 4)
		got, want := make([]float32, n), make([]float32, n)
		withVector(true, func() { forwardGateFM(got, xa, xb, c[0], c[1], c[2], c[3]) })
		withVector(false, func() { forwardGateFM(want, xa, xb, c[0], c[1], c[2], c[3]) })
		if i, ok := sameBits(got, want); !ok {
			t.Fatalf("n=%d: y[%d] = %v, Go loop gives %v", n, i, got[i], want[i])
		}
	}
}

// TestVectorBackwardFMBitIdentical checks backwardGateFM's vector loop
// against its Go loop bit for bit: the input gradients, the four sums, and
// a gate that reads one feature as both a and b (da and db one slice).
func TestVectorBackwardFMBitIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 0))
	for _, n := range vectorLengths() {
		for _, alias := range []bool{false, true} {
			g, xa, xb, c := randVec(rng, n), randVec(rng, n), randVec(rng, n), randVec(rng, 3)
			da0, db0 := randVec(rng, n), randVec(rng, n)
			if alias {
				xb = xa
			}
			run := func(vector bool) (da, db []float32, s [4]float32) {
				da, db = slices.Clone(da0), slices.Clone(db0)
				if alias {
					db = da
				}
				withVector(vector, func() { s = backwardGateFM(da, db, g, xa, xb, c[0], c[1], c[2]) })
				return da, db, s
			}
			gotA, gotB, gotS := run(true)
			wantA, wantB, wantS := run(false)
			if i, ok := sameBits(gotA, wantA); !ok {
				t.Fatalf("n=%d alias=%v: da[%d] = %v, Go loop gives %v", n, alias, i, gotA[i], wantA[i])
			}
			if i, ok := sameBits(gotB, wantB); !ok {
				t.Fatalf("n=%d alias=%v: db[%d] = %v, Go loop gives %v", n, alias, i, gotB[i], wantB[i])
			}
			if i, ok := sameBits(gotS[:], wantS[:]); !ok {
				t.Fatalf("n=%d alias=%v: sum %d = %v, Go loop gives %v", n, alias, i, gotS[i], wantS[i])
			}
		}
	}
}

// TestVectorBackwardSoftFMBitIdentical checks the whole backward pass
// (spans, blocks, the float64 partial sums) with the vector loops against
// the Go loops bit for bit, for row counts that leave partial blocks and
// short tails, with a gate reading one feature twice.
func TestVectorBackwardSoftFMBitIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 0))
	for _, rows := range []int{7, 128, 200, 256, 389, 1000, 1031, 2048, 2600} {
		d := Dims{Rows: rows, Groups: 2, In: 5, Out: 6, SharedInput: true}
		w := Wiring{A: []int32{0, 1, 2, 3, 4, 0}, B: []int32{1, 2, 3, 4, 0, 0}}
		x, g, c := randVec(rng, d.XLen()), randVec(rng, d.YLen()), randVec(rng, 4*d.Gates())
		run := func(vector bool) ([]float32, []float64) {
			dx, sums := make([]float32, len(x)), make([]float64, 4*d.Gates())
			withVector(vector, func() { BackwardSoftFM(dx, sums, g, x, c, w, d) })
			return dx, sums
		}
		gotDx, gotSums := run(true)
		wantDx, wantSums := run(false)
		if i, ok := sameBits(gotDx, wantDx); !ok {
			t.Fatalf("rows=%d: dx[%d] = %v, Go loops give %v", rows, i, gotDx[i], wantDx[i])
		}
		for i := range wantSums {
			if math.Float64bits(gotSums[i]) != math.Float64bits(wantSums[i]) {
				t.Fatalf("rows=%d: sums[%d] = %v, Go loops give %v", rows, i, gotSums[i], wantSums[i])
			}
		}
	}
}
