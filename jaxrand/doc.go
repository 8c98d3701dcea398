// Package jaxrand reproduces the random numbers of JAX 0.4.33's default
// generator bit for bit, so that a run here can draw exactly what the
// paper's notebook (google-research/self-organising-systems,
// notebooks/diffLogic_CA.ipynb, pinned to jax 0.4.33) draws.
//
// The generator is Threefry-2x32 with 20 rounds (Salmon et al., "Parallel
// random numbers: as easy as 1, 2, 3", SC 2011) used the way
// jax/_src/prng.py and jax/_src/random.py use it with the configuration
// that jax 0.4.33 has by default (jax_threefry_partitionable off; it became
// the default only in jax 0.5.0, which changed every stream):
//
//   - A Key is two 32-bit words. NewKey(seed) is jax.random.PRNGKey(seed):
//     the high and low words of the seed.
//   - Hashing a key over an array of n counters (JAX's threefry_2x32) pads n
//     to an even length with a 0, pairs counter i of the first half with
//     counter i of the second half, hashes each pair, and lays out all the
//     first output words, then all the second ones (dropping the padding).
//   - Split(n) hashes the counters 0 .. 2n-1 and reads the result as n keys
//     of two consecutive words; Bits(n) hashes the counters 0 .. n-1.
//   - Uniform, RandInt, Bernoulli and Permutation are jax.random's uniform
//     (float32), randint (int32), bernoulli and permutation built on those.
//
// Every function is a pure function of its key, as in JAX: drawing twice
// from one key gives the same numbers, so callers split keys as the
// notebook does.
package jaxrand
