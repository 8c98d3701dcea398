package circuit

import (
	"testing"

	"github.com/dlca/dlca/gates"
)

// corners enumerates the four input pairs ab = 00, 01, 10, 11.
var corners = [4][2]uint8{{0, 0}, {0, 1}, {1, 0}, {1, 1}}

func TestDerivedOpsMatchTruth(t *testing.T) {
	for o := gates.Op(0); o < gates.NumOps; o++ {
		if got := opFromTruth(o.Truth); got != o {
			t.Errorf("opFromTruth(%v.Truth) = %v", o, got)
		}
		f := formOf(o)
		for _, c := range corners {
			a, b := c[0], c[1]
			want := o.Truth(a, b)
			if got := f.eval(a, b); got != want {
				t.Errorf("form of %v at %d%d = %d, want %d", o, a, b, got, want)
			}
			if got := transpose(o).Truth(b, a); got != want {
				t.Errorf("transpose(%v) at %d%d = %d, want %d", o, b, a, got, want)
			}
			if got := invertA(o).Truth(1-a, b); got != want {
				t.Errorf("invertA(%v) at %d%d = %d, want %d", o, 1-a, b, got, want)
			}
			if got := invertB(o).Truth(a, 1-b); got != want {
				t.Errorf("invertB(%v) at %d%d = %d, want %d", o, a, 1-b, got, want)
			}
		}
	}
}

func TestKernelsMatchTruth(t *testing.T) {
	// Bits 0..3 of a and b run through the four corners; the pattern
	// repeats across the word so every bit position is checked.
	const a, b uint64 = 0xcccccccccccccccc, 0xaaaaaaaaaaaaaaaa
	for o := gates.Op(0); o < gates.NumOps; o++ {
		dst := make([]uint64, 3)
		applyOp(o, dst, []uint64{a, a, a}, []uint64{b, b, b})
		w := o.Word(a, b)
		for bit := 0; bit < 64; bit++ {
			want := uint64(o.Truth(uint8(a>>bit&1), uint8(b>>bit&1)))
			if w>>bit&1 != want {
				t.Fatalf("%v.Word bit %d = %d, want %d", o, bit, w>>bit&1, want)
			}
			for i := range dst {
				if dst[i]>>bit&1 != want {
					t.Fatalf("applyOp(%v) word %d bit %d = %d, want %d", o, i, bit, dst[i]>>bit&1, want)
				}
			}
		}
	}
}
