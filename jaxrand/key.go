package jaxrand

import "fmt"

// Key is a JAX PRNG key: the raw data of a threefry2x32 key, two uint32
// words, as jax.random.key_data prints it.
type Key [2]uint32

// NewKey returns jax.random.PRNGKey(seed): the seed's high 32 bits, then its
// low 32 bits (so NewKey(23) is [0 23]).
func NewKey(seed uint64) Key { return Key{uint32(seed >> 32), uint32(seed)} }

// Uint64 packs k into one number, first word high, so that a key can travel
// where a uint64 seed does; KeyOf undoes it.
func (k Key) Uint64() uint64 { return uint64(k[0])<<32 | uint64(k[1]) }

// KeyOf returns the key that Uint64 packed into u.
func KeyOf(u uint64) Key { return Key{uint32(u >> 32), uint32(u)} }

// String prints k as JAX prints key data: [w0 w1].
func (k Key) String() string { return fmt.Sprintf("[%d %d]", k[0], k[1]) }

// Split returns jax.random.split(k, n): n new keys, the hash of the counters
// 0 .. 2n-1 read as consecutive pairs of words.
func (k Key) Split(n int) []Key {
	if n < 0 {
		panic(fmt.Sprintf("jaxrand: Split(%d)", n))
	}
	words := hash(k, iota(2*n))
	keys := make([]Key, n)
	for i := range keys {
		keys[i] = Key{words[2*i], words[2*i+1]}
	}
	return keys
}

// Split2 is the notebook's `key, subkey = jax.random.split(key)`.
func (k Key) Split2() (Key, Key) {
	s := k.Split(2)
	return s[0], s[1]
}

// FoldIn returns jax.random.fold_in(k, data): k hashed over the counter pair
// (0, data), which is the key NewKey(data) holds.
func (k Key) FoldIn(data uint32) Key {
	w := hash(k, []uint32{0, data})
	return Key{w[0], w[1]}
}
