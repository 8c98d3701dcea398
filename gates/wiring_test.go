package gates

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func newRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0)) }

type pair struct{ a, b int32 }

func pairsOf(w Wiring) []pair {
	p := make([]pair, w.Len())
	for k := range p {
		p[k] = pair{w.A[k], w.B[k]}
	}
	return p
}

func sortedPairs(w Wiring) []pair {
	p := pairsOf(w)
	slices.SortFunc(p, func(x, y pair) int {
		if x.a != y.a {
			return int(x.a - y.a)
		}
		return int(x.b - y.b)
	})
	return p
}

func TestUniqueWiringPairs(t *testing.T) {
	tests := []struct {
		in, out int
		want    []pair // as a set, in the order of the paper's rule
	}{
		{8, 4, []pair{{0, 1}, {2, 3}, {4, 5}, {6, 7}}},
		{4, 2, []pair{{0, 1}, {2, 3}}},
		{2, 1, []pair{{0, 1}}},
		{5, 3, []pair{{0, 1}, {2, 3}, {1, 2}}},
		{4, 5, []pair{{0, 1}, {2, 3}, {1, 2}, {0, 2}, {1, 3}}},
		{3, 3, []pair{{0, 1}, {1, 2}, {0, 2}}},
	}
	for _, tc := range tests {
		w, err := UniqueWiring(tc.in, tc.out, newRNG(1))
		if err != nil {
			t.Fatalf("UniqueWiring(%d, %d): %v", tc.in, tc.out, err)
		}
		want := sortedPairs(Wiring{A: pairA(tc.want), B: pairB(tc.want)})
		if got := sortedPairs(w); !slices.Equal(got, want) {
			t.Errorf("UniqueWiring(%d, %d) pairs %v, want %v", tc.in, tc.out, got, want)
		}
	}
}

func pairA(p []pair) []int32 {
	a := make([]int32, len(p))
	for i := range p {
		a[i] = p[i].a
	}
	return a
}

func pairB(p []pair) []int32 {
	b := make([]int32, len(p))
	for i := range p {
		b[i] = p[i].b
	}
	return b
}

// TestUniqueWiringProperties checks the checkerboard's layer sizes: every
// input read, no pair used twice, a reproducible shuffle.
func TestUniqueWiringProperties(t *testing.T) {
	sizes := [][2]int{{264, 256}, {256, 256}, {256, 128}, {128, 64}, {16, 8}, {8, 8}, {17, 128}, {9, 8}}
	for _, s := range sizes {
		in, out := s[0], s[1]
		w, err := UniqueWiring(in, out, newRNG(23))
		if err != nil {
			t.Fatalf("UniqueWiring(%d, %d): %v", in, out, err)
		}
		if err := w.Check(in); err != nil || w.Len() != out {
			t.Fatalf("UniqueWiring(%d, %d): %d gates, %v", in, out, w.Len(), err)
		}
		read := make([]bool, in)
		seen := map[pair]bool{}
		for _, p := range pairsOf(w) {
			read[p.a], read[p.b] = true, true
			if p.a >= p.b || seen[p] {
				t.Errorf("UniqueWiring(%d, %d): pair %v repeated or not increasing", in, out, p)
			}
			seen[p] = true
		}
		if i := slices.Index(read, false); i >= 0 {
			t.Errorf("UniqueWiring(%d, %d): input %d never read", in, out, i)
		}
		again, _ := UniqueWiring(in, out, newRNG(23))
		if !slices.Equal(pairsOf(w), pairsOf(again)) {
			t.Errorf("UniqueWiring(%d, %d): same seed, different wiring", in, out)
		}
	}
	a, _ := UniqueWiring(256, 256, newRNG(1))
	b, _ := UniqueWiring(256, 256, newRNG(2))
	if slices.Equal(pairsOf(a), pairsOf(b)) {
		t.Error("UniqueWiring: different seeds give the same order")
	}
}

func TestUniqueWiringErrors(t *testing.T) {
	tests := []struct {
		in, out int
		msg     string
	}{
		{9, 4, "needs at least"},
		{264, 128, "needs at least"},
		{1, 1, "distinct pairs"},
		{3, 4, "distinct pairs"},
	}
	for _, tc := range tests {
		_, err := UniqueWiring(tc.in, tc.out, newRNG(1))
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("UniqueWiring(%d, %d) error %v, want one containing %q", tc.in, tc.out, err, tc.msg)
		}
	}
}

func TestRandomWiring(t *testing.T) {
	for _, s := range [][2]int{{264, 256}, {256, 128}, {16, 8}, {5, 40}} {
		in, out := s[0], s[1]
		w := RandomWiring(in, out, newRNG(7))
		if err := w.Check(in); err != nil || w.Len() != out {
			t.Fatalf("RandomWiring(%d, %d): %d gates, %v", in, out, w.Len(), err)
		}
		// c = perm(2*out) mod in hits every residue floor or ceil(2*out/in) times.
		count := make([]int, in)
		for k := range out {
			count[w.A[k]]++
			count[w.B[k]]++
		}
		lo, hi := 2*out/in, (2*out+in-1)/in
		for j, n := range count {
			if n < lo || n > hi {
				t.Errorf("RandomWiring(%d, %d): input %d read %d times, want %d..%d", in, out, j, n, lo, hi)
			}
		}
		if again := RandomWiring(in, out, newRNG(7)); !slices.Equal(pairsOf(w), pairsOf(again)) {
			t.Errorf("RandomWiring(%d, %d): same seed, different wiring", in, out)
		}
	}
}

func TestMooreWiring(t *testing.T) {
	w := MooreWiring(newRNG(3))
	if w.Len() != 8 {
		t.Fatalf("%d gates", w.Len())
	}
	a := slices.Clone(w.A)
	slices.Sort(a)
	if !slices.Equal(a, []int32{0, 1, 2, 3, 5, 6, 7, 8}) {
		t.Errorf("a-inputs %v, want each neighbour once", w.A)
	}
	for k, b := range w.B {
		if b != 4 {
			t.Errorf("gate %d reads b = %d, want the centre 4", k, b)
		}
	}
	if other := MooreWiring(newRNG(4)); slices.Equal(other.A, w.A) {
		t.Error("different seeds give the same neighbour order")
	}
}

func TestNewWiring(t *testing.T) {
	w, err := NewWiring(3, []int{0, 2}, []int{1, 1})
	if err != nil || !slices.Equal(w.A, []int32{0, 2}) || !slices.Equal(w.B, []int32{1, 1}) {
		t.Errorf("NewWiring = %v, %v", w, err)
	}
	tests := []struct {
		a, b []int
		msg  string
	}{
		{[]int{0, 3}, []int{1, 1}, "gate 1 reads input 3, out of range for 3 inputs"},
		{[]int{0}, []int{-1}, "gate 0 reads input -1"},
		{[]int{0, 1}, []int{1}, "2 a-indices but 1 b-indices"},
	}
	for _, tc := range tests {
		if _, err := NewWiring(3, tc.a, tc.b); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("NewWiring(3, %v, %v) error %v, want %q", tc.a, tc.b, err, tc.msg)
		}
	}
}

func TestReverseIndex(t *testing.T) {
	w := Wiring{A: []int32{2, 0, 2}, B: []int32{0, 0, 1}}
	r := NewReverseIndex(w, 4)
	// input 0: gate 0 as b (slot 1), gate 1 as a and b (2, 3); input 1: gate
	// 2 as b (5); input 2: gates 0 and 2 as a (0, 4); input 3: none.
	want := [][]int32{{1, 2, 3}, {5}, {0, 4}, {}}
	for j, slots := range want {
		if got := r.Slot[r.Start[j]:r.Start[j+1]]; !slices.Equal(got, slots) {
			t.Errorf("readers of input %d: %v, want %v", j, got, slots)
		}
	}
}
