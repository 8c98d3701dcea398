package circuit

import (
	"math/rand/v2"
	"testing"
)

// EvalWords agrees bit for bit with Eval (gate by gate through
// gates.Op.Truth) on random netlists in which every op occurs.
func TestEvalWordsMatchesEval(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 0))
	for trial := range 50 {
		nl := randomNetlist(rng, 1+rng.IntN(12), 1+rng.IntN(200), 1+rng.IntN(4))
		in := make([]uint64, nl.NumInputs)
		for i := range in {
			in[i] = rng.Uint64()
		}
		got := make([]uint64, len(nl.Outputs))
		nl.EvalWords(got, in)
		bits := make([]uint8, nl.NumInputs)
		for s := range 64 {
			for i := range bits {
				bits[i] = uint8(in[i] >> s & 1)
			}
			for j, want := range nl.Eval(bits) {
				if g := uint8(got[j] >> s & 1); g != want {
					t.Fatalf("trial %d, sample %d, output %d: EvalWords gives %d, Eval %d", trial, s, j, g, want)
				}
			}
		}
	}
}
