package jaxrand

import (
	"fmt"
	"math"
	"slices"
)

// Bits returns jax.random.bits(k, (n,), uint32): the hash of the counters
// 0 .. n-1. An array of any shape holds the same numbers in row-major order,
// so n is the product of the shape's sides. Bits(n)[i] depends on n, not only
// on i: the counters are paired across the two halves of the array.
func (k Key) Bits(n int) []uint32 {
	if n < 0 {
		panic(fmt.Sprintf("jaxrand: Bits(%d)", n))
	}
	return hash(k, iota(n))
}

// Uniform returns jax.random.uniform(k, (n,)) in float32: each word's top
// 23 bits become the mantissa of a float in [1, 2), less 1, so the values lie
// in [0, 1) on a grid of 2^-23.
func (k Key) Uniform(n int) []float32 {
	out := make([]float32, n)
	for i, b := range k.Bits(n) {
		out[i] = math.Float32frombits(b>>9|0x3F800000) - 1
	}
	return out
}

// Bernoulli returns jax.random.bernoulli(k, p, (n,)): Uniform(n) < p, both in
// float32.
func (k Key) Bernoulli(p float32, n int) []bool {
	out := make([]bool, n)
	for i, u := range k.Uniform(n) {
		out[i] = u < p
	}
	return out
}

// RandInt returns jax.random.randint(k, (n,), lo, hi) in int32: the key is
// split in two, each half gives n words (high and low), and value i is
// lo + (high[i] mod span * (2^32 mod span) + low[i] mod span) mod span with
// span = hi - lo, all in wrapping uint32 arithmetic as XLA computes it (an
// empty range gives lo).
func (k Key) RandInt(n int, lo, hi int32) []int32 {
	k1, k2 := k.Split2()
	high, low := k1.Bits(n), k2.Bits(n)
	span := uint32(hi - lo)
	if hi <= lo {
		span = 1
	}
	// 2^32 mod span, as (2^16 mod span)^2 mod span so that nothing overflows.
	mult := (1 << 16) % span
	mult = mult * mult % span
	out := make([]int32, n)
	for i := range out {
		off := (high[i]%span*mult + low[i]%span) % span
		out[i] = lo + int32(off)
	}
	return out
}

// Permutation returns jax.random.permutation(k, n): 0 .. n-1 in a random
// order. Each round splits the key, draws Bits(n) from the second half and
// sorts the values by them, stably. JAX runs ceil(3 ln n / ln(2^32 - 1))
// rounds: one for every n up to 1,625 (every wiring here), two beyond.
func (k Key) Permutation(n int) []int {
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	for range permutationRounds(n) {
		var sub Key
		k, sub = k.Split2()
		sortKeys := sub.Bits(n)
		idx := make([]int, n) // positions, sorted by their sort keys
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int {
			switch {
			case sortKeys[a] < sortKeys[b]:
				return -1
			case sortKeys[a] > sortKeys[b]:
				return 1
			}
			return 0
		})
		next := make([]int, n)
		for i, j := range idx {
			next[i] = perm[j]
		}
		perm = next
	}
	return perm
}

// permutationRounds is the number of sorts jax.random.permutation runs for n
// elements: enough that the sort keys of all elements differ in some round
// with high probability (jax/_src/random.py, _shuffle).
func permutationRounds(n int) int {
	return int(math.Ceil(3 * math.Log(float64(max(1, n))) / math.Log(math.MaxUint32)))
}

// Perm is Permutation, so that a key serves where a permutation source is
// wanted (gates.Permuter).
func (k Key) Perm(n int) []int { return k.Permutation(n) }
