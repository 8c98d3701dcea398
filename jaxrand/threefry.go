package jaxrand

import "math/bits"

// parity is Threefry's key-schedule constant (Skein's C240).
const parity = 0x1BD11BDA

// rotations are Threefry-2x32's rotation distances: the first four serve
// rounds 1-4, 9-12 and 17-20, the second four rounds 5-8 and 13-16.
var rotations = [2][4]int{{13, 15, 26, 6}, {17, 29, 16, 24}}

// Threefry2x32 returns the 20-round Threefry-2x32 hash of the counter pair
// (x0, x1) under key: the primitive (JAX's threefry2x32_p) every draw is
// made of.
func Threefry2x32(key Key, x0, x1 uint32) (uint32, uint32) {
	ks := [3]uint32{key[0], key[1], key[0] ^ key[1] ^ parity}
	x0 += ks[0]
	x1 += ks[1]
	for i := range 5 {
		for _, r := range rotations[i%2] {
			x0 += x1
			x1 = bits.RotateLeft32(x1, r)
			x1 ^= x0
		}
		// Key injection i+1: the schedule moves one word along and the
		// injection number is added to the second word.
		x0 += ks[(i+1)%3]
		x1 += ks[(i+2)%3] + uint32(i+1)
	}
	return x0, x1
}

// hash is JAX's threefry_2x32 over a flat array of counters: the counters
// (padded with one 0 to an even count) are cut into two halves, counter i
// of the first half hashed together with counter i of the second, and the
// result is every pair's first word followed by every pair's second word,
// without the padding's slot.
func hash(key Key, counts []uint32) []uint32 {
	n := len(counts)
	half := (n + 1) / 2
	at := func(i int) uint32 {
		if i < n {
			return counts[i]
		}
		return 0
	}
	out := make([]uint32, 2*half)
	for i := range half {
		out[i], out[half+i] = Threefry2x32(key, at(i), at(half+i))
	}
	return out[:n]
}

// iota returns the counters 0 .. n-1.
func iota(n int) []uint32 {
	c := make([]uint32, n)
	for i := range c {
		c[i] = uint32(i)
	}
	return c
}
