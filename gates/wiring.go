package gates

import (
	"fmt"
	"math/rand/v2"
)

// Wiring is a gate layer's fixed connections: gate k reads input A[k] as its
// first operand a and input B[k] as its second operand b. len(A) == len(B) is
// the number of gates.
type Wiring struct{ A, B []int32 }

// Len returns the number of gates.
func (w Wiring) Len() int { return len(w.A) }

// Check reports whether w is a valid wiring over in inputs: A and B of equal
// length, every index in [0, in).
func (w Wiring) Check(in int) error {
	if len(w.A) != len(w.B) {
		return fmt.Errorf("gates: wiring has %d a-indices but %d b-indices", len(w.A), len(w.B))
	}
	for k := range w.A {
		for _, j := range [2]int32{w.A[k], w.B[k]} {
			if j < 0 || int(j) >= in {
				return fmt.Errorf("gates: wiring of gate %d reads input %d, out of range for %d inputs", k, j, in)
			}
		}
	}
	return nil
}

// NewWiring returns the explicit wiring with a[k], b[k] the inputs of gate k,
// or an error if the slices differ in length or an index is outside [0, in).
// The slices are copied.
func NewWiring(in int, a, b []int) (Wiring, error) {
	w := Wiring{A: make([]int32, len(a)), B: make([]int32, len(b))}
	for k, j := range a {
		w.A[k] = int32(j)
	}
	for k, j := range b {
		w.B[k] = int32(j)
	}
	return w, w.Check(in)
}

// Permuter draws random permutations: *rand.Rand is one, and so is a JAX key
// (jaxrand.Key), whose Perm is jax.random.permutation.
type Permuter interface {
	// Perm returns 0 .. n-1 in a random order.
	Perm(n int) []int
}

// UniqueWiring returns the 'unique' wiring of Petersen et al. for a layer of
// out gates over in inputs, which reads every input at least once and uses
// no pair twice: pairs (0,1), (2,3), ... then (1,2), (3,4), ... then (i, i+d)
// for d = 2, 3, ..., truncated to out pairs, and the gates put in a random
// order drawn from rng (one rng.Perm(out)), as the paper's notebook does
// with one jax.random.permutation.
//
// It returns an error when 2*out < in (some input would go unread) or when in
// inputs have fewer than out distinct pairs.
func UniqueWiring(in, out int, rng Permuter) (Wiring, error) {
	if in < 0 || out < 0 || 2*out < in {
		return Wiring{}, fmt.Errorf("gates: unique wiring of %d gates over %d inputs: needs at least ceil(in/2) = %d gates so that every input is read", out, in, (in+1)/2)
	}
	if pairs := in * (in - 1) / 2; pairs < out {
		return Wiring{}, fmt.Errorf("gates: unique wiring of %d gates over %d inputs: only %d distinct pairs exist", out, in, pairs)
	}
	a := make([]int32, 0, out)
	b := make([]int32, 0, out)
	add := func(start, step, d int) {
		for i := start; i+d < in && len(a) < out; i += step {
			a = append(a, int32(i))
			b = append(b, int32(i+d))
		}
	}
	add(0, 2, 1) // (0,1), (2,3), ...
	add(1, 2, 1) // (1,2), (3,4), ...
	for d := 2; len(a) < out; d++ {
		add(0, 1, d) // (0,d), (1,1+d), ...
	}
	w := Wiring{A: make([]int32, out), B: make([]int32, out)}
	for k, p := range rng.Perm(out) {
		w.A[k], w.B[k] = a[p], b[p]
	}
	return w, nil
}

// RandomWiring returns the 'random' wiring of Petersen et al.: the numbers
// 0 .. 2*out-1 in a random order (rng.Perm(2*out)), taken modulo in, relabelled
// through a random permutation of the inputs (rng.Perm(in)); the first half
// are the a-inputs, the second half the b-inputs. Every input is read at
// least once when 2*out >= in. RandomWiring panics if in <= 0 < out.
func RandomWiring(in, out int, rng *rand.Rand) Wiring {
	if in <= 0 && out > 0 {
		panic(fmt.Sprintf("gates: RandomWiring: %d gates over %d inputs", out, in))
	}
	c := rng.Perm(2 * out)
	relabel := rng.Perm(in)
	w := Wiring{A: make([]int32, out), B: make([]int32, out)}
	for k := range out {
		w.A[k] = int32(relabel[c[k]%in])
		w.B[k] = int32(relabel[c[out+k]%in])
	}
	return w
}

// MooreCentre is the index of the centre cell in a 3x3 neighbourhood listed
// row-major.
const MooreCentre = 4

// MooreWiring returns the first perception layer's wiring over a 3x3
// neighbourhood listed row-major (9 inputs, the centre at index 4): 8 gates,
// gate k reading neighbour a = one of {0,1,2,3,5,6,7,8} in the random order
// rng.Perm(8), and b = the centre.
func MooreWiring(rng Permuter) Wiring {
	neighbours := [8]int32{0, 1, 2, 3, 5, 6, 7, 8}
	w := Wiring{A: make([]int32, 8), B: make([]int32, 8)}
	for k, p := range rng.Perm(8) {
		w.A[k], w.B[k] = neighbours[p], MooreCentre
	}
	return w
}
