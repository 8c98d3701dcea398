package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// reference returns op(a)·op(b) + beta·c in float64, by the definition.
func reference[T Float](ta, tb bool, m, n, k int, a []T, lda int, b []T, ldb int, beta float64, c []T, ldc int) []float64 {
	out := make([]float64, m*n)
	for i := range m {
		for j := range n {
			s := beta * float64(c[i*ldc+j])
			for p := range k {
				ai, bi := i*lda+p, p*ldb+j
				if ta {
					ai = p*lda + i
				}
				if tb {
					bi = j*ldb + p
				}
				av, bv := a[ai], b[bi]
				s += float64(av) * float64(bv)
			}
			out[i*n+j] = s
		}
	}
	return out
}

// operands returns random a, b, c for op(a) m×k, op(b) k×n, c m×n, with
// row strides one larger than needed so that strides are exercised.
func operands[T Float](rng *rand.Rand, ta, tb bool, m, n, k int) (a []T, lda int, b []T, ldb int, c []T, ldc int) {
	ar, ac := m, k
	if ta {
		ar, ac = k, m
	}
	br, bc := k, n
	if tb {
		br, bc = n, k
	}
	lda, ldb, ldc = ac+1, bc+1, n+1
	fill := func(s []T) []T {
		for i := range s {
			s[i] = T(rng.Float64()*2 - 1)
		}
		return s
	}
	return fill(make([]T, ar*lda)), lda, fill(make([]T, br*ldb)), ldb, fill(make([]T, m*ldc)), ldc
}

var sizes = []int{1, 7, 17, 63, 64, 65, 129}

// bound is the error allowed for a sum of k products of values in [-1, 1]
// (plus beta·c): each of the k additions rounds by at most eps times the
// running sum's magnitude, at most k+1, so k·(k+1)·eps bounds the error;
// the blocked sum is no worse.
func bound(k int, eps float64) float64 { return float64(k+1) * float64(k+1) * eps }

// TestSgemmDgemmMatchReference checks every transpose combination, beta 0,
// 1 and 0.5, and all shapes from sizes (edge tiles in m, n and k, and k
// past one kc block with 257 and 600), for both kernels, against the
// float64 definition.
func TestSgemmDgemmMatchReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ks := append(append([]int{}, sizes...), 257, 600)
	for _, asm := range []bool{true, false} {
		was := UseAssembly(asm)
		for _, m := range sizes {
			for _, n := range sizes {
				for _, k := range ks {
					for _, tr := range [4][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
						beta := []float64{0, 1, 0.5}[(m+n+k)%3]
						ta, tb := tr[0], tr[1]
						name := fmt.Sprintf("asm=%v m=%d n=%d k=%d ta=%v tb=%v beta=%v", Assembly(), m, n, k, ta, tb, beta)
						a, lda, b, ldb, c, ldc := operands[float32](rng, ta, tb, m, n, k)
						want := reference(ta, tb, m, n, k, a, lda, b, ldb, beta, c, ldc)
						Sgemm(ta, tb, m, n, k, a, lda, b, ldb, float32(beta), c, ldc, 2)
						compare(t, "Sgemm "+name, want, c, m, n, ldc, bound(k, 0x1p-24))
						a64, lda, b64, ldb, c64, ldc := operands[float64](rng, ta, tb, m, n, k)
						want = reference(ta, tb, m, n, k, a64, lda, b64, ldb, beta, c64, ldc)
						Dgemm(ta, tb, m, n, k, a64, lda, b64, ldb, beta, c64, ldc, 2)
						compare(t, "Dgemm "+name, want, c64, m, n, ldc, bound(k, 0x1p-53))
						if t.Failed() {
							UseAssembly(was)
							return
						}
					}
				}
			}
		}
		UseAssembly(was)
	}
}

func compare[T Float](t *testing.T, name string, want []float64, got []T, m, n, ldc int, tol float64) {
	t.Helper()
	for i := range m {
		for j := range n {
			if d := math.Abs(float64(got[i*ldc+j]) - want[i*n+j]); !(d <= tol) {
				t.Errorf("%s: c[%d][%d] = %v, want %v (|diff| %g > %g)", name, i, j, got[i*ldc+j], want[i*n+j], d, tol)
				return
			}
		}
	}
}

// TestSameBitsAnyThreadCount checks that 1, 2, 3, 5 and 8 threads give the
// same bits, on shapes that split by rows and by columns with edge tiles.
func TestSameBitsAnyThreadCount(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, s := range [][3]int{{129, 65, 300}, {65, 300, 129}, {7, 1000, 63}, {200, 17, 600}} {
		m, n, k := s[0], s[1], s[2]
		for _, tr := range [4][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			a, lda, b, ldb, c0, ldc := operands[float32](rng, tr[0], tr[1], m, n, k)
			var first []float32
			for _, th := range []int{1, 2, 3, 5, 8} {
				c := append([]float32(nil), c0...)
				Sgemm(tr[0], tr[1], m, n, k, a, lda, b, ldb, 1, c, ldc, th)
				if first == nil {
					first = c
					continue
				}
				for i := range c {
					if math.Float32bits(c[i]) != math.Float32bits(first[i]) {
						t.Fatalf("m=%d n=%d k=%d ta=%v tb=%v: %d threads give c[%d] = %v, 1 thread %v", m, n, k, tr[0], tr[1], th, i, c[i], first[i])
					}
				}
			}
			a64, lda, b64, ldb, d0, ldc := operands[float64](rng, tr[0], tr[1], m, n, k)
			var first64 []float64
			for _, th := range []int{1, 2, 3, 5, 8} {
				c := append([]float64(nil), d0...)
				Dgemm(tr[0], tr[1], m, n, k, a64, lda, b64, ldb, 0, c, ldc, th)
				if first64 == nil {
					first64 = c
					continue
				}
				for i := range c {
					if math.Float64bits(c[i]) != math.Float64bits(first64[i]) {
						t.Fatalf("Dgemm m=%d n=%d k=%d: %d threads give c[%d] = %v, 1 thread %v", m, n, k, th, i, c[i], first64[i])
					}
				}
			}
		}
	}
}

// TestEdgesUntouched checks that nothing outside the m×n block of c (the
// padding columns of its row stride) is written.
func TestEdgesUntouched(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	m, n, k := 13, 21, 9
	a, lda, b, ldb, c, ldc := operands[float32](rng, false, false, m, n, k)
	for i := range m {
		c[i*ldc+n] = 42
	}
	Sgemm(false, false, m, n, k, a, lda, b, ldb, 0, c, ldc, 3)
	for i := range m {
		if c[i*ldc+n] != 42 {
			t.Fatalf("row %d: padding element written (%v)", i, c[i*ldc+n])
		}
	}
}

// TestKZeroScales checks k = 0: c becomes beta·c, as BLAS.
func TestKZeroScales(t *testing.T) {
	c := []float64{1, 2, 3, 4}
	Dgemm(false, false, 2, 2, 0, nil, 1, nil, 2, 0.5, c, 2, 1)
	for i, want := range []float64{0.5, 1, 1.5, 2} {
		if c[i] != want {
			t.Fatalf("c = %v, want [0.5 1 1.5 2]", c)
		}
	}
}
