package circuit

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
)

// MaxExhaustiveInputs is the largest input count Equivalent checks on every
// input vector (2^20 vectors, 16,384 words); larger netlists are checked on
// a random sample.
const MaxExhaustiveInputs = 20

// Mismatch is an input on which two netlists disagree.
type Mismatch struct {
	Inputs    []uint8
	Want, Got []uint8 // the first and the second netlist's outputs
}

func (m *Mismatch) String() string {
	return fmt.Sprintf("inputs %v: first gives %v, second %v", m.Inputs, m.Want, m.Got)
}

// Equivalent checks whether a and b compute the same outputs. With at most
// MaxExhaustiveInputs inputs it tries every input vector and the result is
// a proof; otherwise it tries words*64 random vectors drawn from seed. It
// returns the first mismatch found, or nil, and an error if the two do not
// have the same numbers of inputs and outputs. It panics on a malformed
// netlist.
func Equivalent(a, b *Netlist, words int, seed uint64) (*Mismatch, error) {
	a.mustValidate("Equivalent")
	b.mustValidate("Equivalent")
	if a.NumInputs != b.NumInputs || len(a.Outputs) != len(b.Outputs) {
		return nil, fmt.Errorf("circuit: cannot compare a netlist of %d inputs and %d outputs with one of %d and %d",
			a.NumInputs, len(a.Outputs), b.NumInputs, len(b.Outputs))
	}
	n := a.NumInputs
	in := make([]uint64, n)
	outA, outB := make([]uint64, len(a.Outputs)), make([]uint64, len(b.Outputs))
	var fill func(w int)
	total := words
	if n <= MaxExhaustiveInputs {
		// Sample s = 64w + bit: input i is bit i of s. Inputs below 6 follow
		// the bit position; the others are constant across the word.
		total = max(1, (1<<n)/64)
		fill = func(w int) {
			for i := range in {
				if i < 6 {
					in[i] = lowPatterns[i]
				} else if w>>(i-6)&1 == 1 {
					in[i] = ^uint64(0)
				} else {
					in[i] = 0
				}
			}
		}
	} else {
		rng := rand.New(rand.NewPCG(seed, 0))
		fill = func(int) {
			for i := range in {
				in[i] = rng.Uint64()
			}
		}
	}
	for w := 0; w < total; w++ {
		fill(w)
		a.EvalWords(in, outA)
		b.EvalWords(in, outB)
		valid := ^uint64(0)
		if n < 6 {
			valid = 1<<(1<<n) - 1 // fewer than 64 distinct vectors
		}
		for j := range outA {
			if d := (outA[j] ^ outB[j]) & valid; d != 0 {
				return mismatchAt(in, outA, outB, bits.TrailingZeros64(d)), nil
			}
		}
	}
	return nil, nil
}

// lowPatterns[i] has bit s set when bit i of s is set, for s in 0..63.
var lowPatterns = [6]uint64{
	0xaaaaaaaaaaaaaaaa, 0xcccccccccccccccc, 0xf0f0f0f0f0f0f0f0,
	0xff00ff00ff00ff00, 0xffff0000ffff0000, 0xffffffff00000000,
}

// mismatchAt extracts sample bit from the bit-sliced words.
func mismatchAt(in, outA, outB []uint64, bit int) *Mismatch {
	col := func(ws []uint64) []uint8 {
		v := make([]uint8, len(ws))
		for i, w := range ws {
			v[i] = uint8(w >> bit & 1)
		}
		return v
	}
	return &Mismatch{Inputs: col(in), Want: col(outA), Got: col(outB)}
}
