package circuit

import (
	"math/rand/v2"
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

// The gate loops, vector and Go, against Truth: every op, lengths around
// the vector width, every bit of every word, and the word after dst left
// alone.
func TestKernelsMatchTruth(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 0))
	saved := useVector
	defer func() { useVector = saved }()
	for _, vector := range []bool{false, true} {
		if vector && !saved {
			t.Log("this CPU has no vector loops: only the Go loops are checked")
			continue
		}
		useVector = vector
		for o := gates.Op(0); o < gates.NumOps; o++ {
			for _, n := range []int{0, 1, 3, 4, 5, 8, 13, 64} {
				a, b := make([]uint64, n+2), make([]uint64, n+2)
				for i := range a {
					a[i], b[i] = rng.Uint64(), rng.Uint64()
				}
				if n > 0 {
					// Bits 0..3 of the first words run through the four corners.
					a[0], b[0] = 0xcccccccccccccccc, 0xaaaaaaaaaaaaaaaa
				}
				const sentinel = 0x5a5a5a5a5a5a5a5a
				dst := make([]uint64, n+1)
				dst[n] = sentinel
				applyOp(o, dst[:n], a, b)
				if dst[n] != sentinel {
					t.Fatalf("vector=%v %v, %d words: wrote past dst", vector, o, n)
				}
				for i := range n {
					if w := o.Word(a[i], b[i]); dst[i] != w {
						t.Fatalf("vector=%v %v, %d words: word %d = %x, gates.Op.Word gives %x", vector, o, n, i, dst[i], w)
					}
					for bit := 0; bit < 64; bit++ {
						want := uint64(o.Truth(uint8(a[i]>>bit&1), uint8(b[i]>>bit&1)))
						if dst[i]>>bit&1 != want {
							t.Fatalf("vector=%v %v word %d bit %d = %d, Truth gives %d", vector, o, i, bit, dst[i]>>bit&1, want)
						}
					}
				}
			}
		}
	}
}
