package jaxrand

import (
	"slices"
	"testing"
)

// TestThreefryKnownAnswers holds the hash to the Random123 known-answer
// vectors that JAX's own tests use (tests/random_test.py, testThreefry2x32).
func TestThreefryKnownAnswers(t *testing.T) {
	for _, c := range []struct {
		key       Key
		x0, x1    uint32
		want0, w1 uint32
	}{
		{Key{0, 0}, 0, 0, 0x6b200159, 0x99ba4efe},
		{Key{0xffffffff, 0xffffffff}, 0xffffffff, 0xffffffff, 0x1cb996fc, 0xbb002be7},
		{Key{0x13198a2e, 0x03707344}, 0x243f6a88, 0x85a308d3, 0xc4923a9c, 0x483df7a0},
	} {
		if y0, y1 := Threefry2x32(c.key, c.x0, c.x1); y0 != c.want0 || y1 != c.w1 {
			t.Errorf("Threefry2x32(%v, %#x, %#x) = %#x, %#x, want %#x, %#x", c.key, c.x0, c.x1, y0, y1, c.want0, c.w1)
		}
	}
}

// TestPublishedOutputs holds the stream to values JAX printed (with
// jax_threefry_partitionable off, the default before jax 0.5.0): the JAX
// tutorial on pseudo-random numbers prints, for key = PRNGKey(0),
// `key, subkey = random.split(key)` as [4146024105 967050713] and
// [2718843009 1272950319]; jax.random.bits(key(0), (4,)) prints the same
// four words in that order.
func TestPublishedOutputs(t *testing.T) {
	k := NewKey(0)
	if k != (Key{0, 0}) {
		t.Fatalf("NewKey(0) = %v, want [0 0]", k)
	}
	key, sub := k.Split2()
	if key != (Key{4146024105, 967050713}) || sub != (Key{2718843009, 1272950319}) {
		t.Errorf("split(PRNGKey(0)) = %v, %v, want [4146024105 967050713], [2718843009 1272950319]", key, sub)
	}
	if got, want := k.Bits(4), []uint32{4146024105, 967050713, 2718843009, 1272950319}; !slices.Equal(got, want) {
		t.Errorf("bits(PRNGKey(0), 4) = %v, want %v", got, want)
	}
	if NewKey(23) != (Key{0, 23}) || NewKey(1<<32+5) != (Key{1, 5}) {
		t.Errorf("NewKey(23) = %v, NewKey(2^32+5) = %v, want [0 23], [1 5]", NewKey(23), NewKey(1<<32+5))
	}
}

// The tests below write JAX's definitions out by hand, from the hash alone.

// TestSplitByHand: split(k, 3) hashes the counters 0..5, cut into halves
// (0 1 2 | 3 4 5): pairs (0,3), (1,4), (2,5) give words a, b, c; the output
// a0 b0 c0 a1 b1 c1 is read as the keys (a0 b0), (c0 a1), (b1 c1).
func TestSplitByHand(t *testing.T) {
	k := Key{0, 23}
	a0, a1 := Threefry2x32(k, 0, 3)
	b0, b1 := Threefry2x32(k, 1, 4)
	c0, c1 := Threefry2x32(k, 2, 5)
	want := []Key{{a0, b0}, {c0, a1}, {b1, c1}}
	if got := k.Split(3); !slices.Equal(got, want) {
		t.Errorf("Split(3) = %v, want %v", got, want)
	}
	// fold_in(k, 7) hashes the counters (0, 7) as one pair.
	f0, f1 := Threefry2x32(k, 0, 7)
	if got := k.FoldIn(7); got != (Key{f0, f1}) {
		t.Errorf("FoldIn(7) = %v, want [%d %d]", got, f0, f1)
	}
}

// TestBitsOddByHand: an odd count is padded with a 0, so bits(k, 3) hashes
// the pairs (0, 2) and (1, 0) and keeps the first three of a0 b0 a1 b1.
func TestBitsOddByHand(t *testing.T) {
	k := Key{7, 9}
	a0, a1 := Threefry2x32(k, 0, 2)
	b0, _ := Threefry2x32(k, 1, 0)
	if got, want := k.Bits(3), []uint32{a0, b0, a1}; !slices.Equal(got, want) {
		t.Errorf("Bits(3) = %v, want %v", got, want)
	}
}

// TestUniformByHand: uniform keeps a word's top 23 bits as the mantissa of
// a float in [1, 2) and subtracts 1: word w gives (w >> 9) / 2^23.
func TestUniformByHand(t *testing.T) {
	k := Key{0, 23}
	words := k.Bits(5)
	got := k.Uniform(5)
	for i, w := range words {
		if want := float32(float64(w>>9) / (1 << 23)); got[i] != want {
			t.Errorf("Uniform[%d] = %v, want %v (word %#x)", i, got[i], want, w)
		}
	}
	// PRNGKey(0)'s first word 4146024105 = 0xf71f4ea9: its top 23 bits are
	// 0x7b8fa7 = 8097703, so uniform(PRNGKey(0), (4,))[0] = 8097703 / 2^23.
	if u := NewKey(0).Uniform(4)[0]; u != float32(8097703.0/(1<<23)) {
		t.Errorf("uniform(PRNGKey(0), 4)[0] = %v, want %v", u, 8097703.0/(1<<23))
	}
	for i, b := range k.Bernoulli(0.5, 5) {
		if b != (got[i] < 0.5) {
			t.Errorf("Bernoulli[%d] = %v with uniform %v", i, b, got[i])
		}
	}
}

// TestPermutationByHand: permutation(k, n) for small n is one stable sort
// of 0..n-1 by the words bits(subkey, n), subkey the second half of
// split(k).
func TestPermutationByHand(t *testing.T) {
	k := Key{0, 23}
	_, sub := k.Split2()
	words := sub.Bits(8)
	got := k.Permutation(8)
	if len(got) != 8 {
		t.Fatalf("Permutation(8) has %d entries", len(got))
	}
	// Sorted by their words, the values' words must rise strictly (a stable
	// sort of distinct words) and every value appear once.
	seen := map[int]bool{}
	for i, v := range got {
		seen[v] = true
		if i > 0 && words[got[i-1]] >= words[v] {
			t.Errorf("Permutation(8) = %v: word of %d (%#x) not below word of %d (%#x)", got, got[i-1], words[got[i-1]], v, words[v])
		}
	}
	if len(seen) != 8 {
		t.Errorf("Permutation(8) = %v is not a permutation", got)
	}
}

// TestPermutationRounds: JAX sorts once for every size the wirings use
// (up to 1,625 = floor((2^32-1)^(1/3)) elements) and twice above.
func TestPermutationRounds(t *testing.T) {
	for n, want := range map[int]int{0: 0, 1: 0, 2: 1, 8: 1, 512: 1, 1024: 1, 1625: 1, 1626: 2} {
		if got := permutationRounds(n); got != want {
			t.Errorf("permutationRounds(%d) = %d, want %d", n, got, want)
		}
	}
	// Two rounds: the second sorts the first round's result by the words of
	// the second subkey.
	k := Key{3, 4}
	k1, s1 := k.Split2()
	_, s2 := k1.Split2()
	n := 2000
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	for _, s := range []Key{s1, s2} {
		w := s.Bits(n)
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int { return int(int64(w[a]) - int64(w[b])) })
		next := make([]int, n)
		for i, j := range idx {
			next[i] = perm[j]
		}
		perm = next
	}
	if got := k.Permutation(n); !slices.Equal(got, perm) {
		t.Errorf("Permutation(%d) differs from two hand-written rounds", n)
	}
}

// TestRandIntByHand: randint(k, (n,), 0, 2) splits k into k1, k2 and takes
// (high mod 2 * (2^32 mod 2) + low mod 2) mod 2 = low mod 2: the low bit of
// bits(k2, n). A span of 10 needs the multiplier 2^32 mod 10 = 6.
func TestRandIntByHand(t *testing.T) {
	k := Key{0, 23}
	k1, k2 := k.Split2()
	high, low := k1.Bits(6), k2.Bits(6)
	bits := k.RandInt(6, 0, 2)
	tens := k.RandInt(6, 5, 15)
	for i := range 6 {
		if want := int32(low[i] & 1); bits[i] != want {
			t.Errorf("RandInt(0, 2)[%d] = %d, want %d", i, bits[i], want)
		}
		if want := 5 + int32((uint64(high[i]%10)*6+uint64(low[i]%10))%10); tens[i] != want {
			t.Errorf("RandInt(5, 15)[%d] = %d, want %d", i, tens[i], want)
		}
	}
	if got := k.RandInt(3, 4, 4); !slices.Equal(got, []int32{4, 4, 4}) {
		t.Errorf("RandInt over an empty range = %v, want the minimum", got)
	}
}
