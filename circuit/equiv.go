package circuit

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
)

// MaxExhaustiveInputs is the most inputs an output may depend on for
// Equivalent to check it on every assignment of them (2^20 vectors, 16,384
// words); outputs that depend on more are checked on a random sample.
const MaxExhaustiveInputs = 20

// Mismatch is an input on which two netlists disagree.
type Mismatch struct {
	Inputs    []uint8
	Want, Got []uint8 // the first and the second netlist's outputs
}

func (m *Mismatch) String() string {
	return fmt.Sprintf("inputs %v: first gives %v, second %v", m.Inputs, m.Want, m.Got)
}

// Equivalent checks whether a and b compute the same outputs. An output
// that depends on at most MaxExhaustiveInputs inputs (those it reads in a
// and in b together) is compared on every assignment of them, which proves
// it equal or finds the difference; the other outputs are compared on
// words*64 random input vectors drawn from seed. It returns the first
// mismatch found, or nil, and an error if the two do not have the same
// numbers of inputs and outputs. It panics on a malformed netlist.
func Equivalent(a, b *Netlist, words int, seed uint64) (*Mismatch, error) {
	a.mustValidate("Equivalent")
	b.mustValidate("Equivalent")
	if a.NumInputs != b.NumInputs || len(a.Outputs) != len(b.Outputs) {
		return nil, fmt.Errorf("circuit: cannot compare a netlist of %d inputs and %d outputs with one of %d and %d",
			a.NumInputs, len(a.Outputs), b.NumInputs, len(b.Outputs))
	}
	supA, supB := supports(a), supports(b)
	var sampled []int
	for j := range a.Outputs {
		sa, sb := supA[a.Outputs[j]], supB[b.Outputs[j]]
		if supBig(sa) || supBig(sb) {
			sampled = append(sampled, j)
			continue
		}
		s := slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(sa), sb...))))
		if len(s) > MaxExhaustiveInputs {
			sampled = append(sampled, j)
			continue
		}
		if m := compareOn(a, b, []int{j}, exhaustiveFill(s, a.NumInputs)); m != nil {
			return m, nil
		}
	}
	if len(sampled) == 0 {
		return nil, nil
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	return compareOn(a, b, sampled, func(w int, in []uint64) (uint64, bool) {
		if w >= words {
			return 0, false
		}
		for i := range in {
			in[i] = rng.Uint64()
		}
		return ^uint64(0), true
	}), nil
}

// A fill sets the input words of batch w and returns the mask of the valid
// samples in them, or false when there are no more batches.
type fill func(w int, in []uint64) (uint64, bool)

// exhaustiveFill enumerates every assignment of the inputs in s, the
// others 0: sample 64w + bit sets input s[i] to bit i of the sample number.
func exhaustiveFill(s []int32, numInputs int) fill {
	n := len(s)
	return func(w int, in []uint64) (uint64, bool) {
		if w > 0 && w >= (1<<n)/64 {
			return 0, false
		}
		clear(in)
		for i, v := range s {
			switch {
			case i < 6:
				in[v] = lowPatterns[i]
			case w>>(i-6)&1 == 1:
				in[v] = ^uint64(0)
			}
		}
		if n < 6 {
			return 1<<(1<<n) - 1, true // fewer than 64 samples
		}
		return ^uint64(0), true
	}
}

// compareOn evaluates both netlists on the batches of next and returns the
// first sample where one of the outputs listed differs.
func compareOn(a, b *Netlist, outputs []int, next fill) *Mismatch {
	in := make([]uint64, a.NumInputs)
	outA, outB := make([]uint64, len(a.Outputs)), make([]uint64, len(b.Outputs))
	for w := 0; ; w++ {
		valid, ok := next(w, in)
		if !ok {
			return nil
		}
		a.EvalWords(outA, in)
		b.EvalWords(outB, in)
		for _, j := range outputs {
			if d := (outA[j] ^ outB[j]) & valid; d != 0 {
				return mismatchAt(in, outA, outB, bits.TrailingZeros64(d))
			}
		}
	}
}

// bigSupport marks a value that depends on more than MaxExhaustiveInputs
// inputs.
var bigSupport = []int32{-1}

func supBig(s []int32) bool { return len(s) == 1 && s[0] == -1 }

// supports returns, for every value, the sorted inputs it depends on
// through operands its ops read, or bigSupport when there are more than
// MaxExhaustiveInputs of them.
func supports(nl *Netlist) [][]int32 {
	sup := make([][]int32, nl.NumValues())
	for i := range nl.NumInputs {
		sup[i] = []int32{int32(i)}
	}
	for k, g := range nl.Gates {
		var s []int32
		for _, op := range [2]struct {
			v    int32
			used bool
		}{{g.A, dependsOnA(g.Op)}, {g.B, dependsOnB(g.Op)}} {
			if !op.used {
				continue
			}
			if supBig(sup[op.v]) {
				s = bigSupport
				break
			}
			s = append(s, sup[op.v]...)
		}
		if !supBig(s) {
			s = slices.Compact(slices.Sorted(slices.Values(s)))
			if len(s) > MaxExhaustiveInputs {
				s = bigSupport
			}
		}
		sup[nl.NumInputs+k] = s
	}
	return sup
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
