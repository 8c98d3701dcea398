package circuit

import (
	"math/rand/v2"

	"github.com/dlca/dlca/gates"
)

// Gates that depend on more than maxSupport inputs have no truth table in
// MergeEquivalent. Up to MaxExhaustiveInputs, it still merges them the way
// equivalence checkers do: random simulation finds the candidates (gates
// with the same values, or opposite ones, on simWords*64 random input
// vectors) and Equivalent proves each candidate pair equal on every
// assignment of the inputs they depend on before they merge. Simulation
// alone never merges anything.

// simWords is the number of random 64-vector words in a signature.
const simWords = 4

// maxProofs bounds the candidates tried per gate, so that a netlist with
// many look-alike gates stays fast.
const maxProofs = 4

type signature [simWords]uint64

// simMerger holds every value's signature and structural support, and the
// earlier gates met so far by signature.
type simMerger struct {
	nl   *Netlist
	sigs []signature
	sup  [][]int32
	seen map[signature][]int32 // looked up only
}

func newSimMerger(nl *Netlist) *simMerger {
	all := nl.Clone()
	all.Outputs = make([]int32, nl.NumValues())
	for v := range all.Outputs {
		all.Outputs[v] = int32(v)
	}
	s := &simMerger{nl: nl, sigs: make([]signature, nl.NumValues()), sup: supports(nl), seen: map[signature][]int32{}}
	rng := rand.New(rand.NewPCG(uint64(nl.NumValues()), 1))
	in, out := make([]uint64, nl.NumInputs), make([]uint64, nl.NumValues())
	for w := range simWords {
		for i := range in {
			in[i] = rng.Uint64()
		}
		all.EvalWords(out, in)
		for v, x := range out {
			s.sigs[v][w] = x
		}
	}
	return s
}

// match returns an earlier gate proven to compute old value v's function
// (not negated) or its negation (negated), and records v otherwise.
func (s *simMerger) match(v int32) (u int32, negated, ok bool) {
	if supBig(s.sup[v]) {
		return 0, false, false
	}
	sig := s.sigs[v]
	var inv signature
	for w, x := range sig {
		inv[w] = ^x
	}
	tried := 0
	for _, c := range []struct {
		sig signature
		neg bool
	}{{sig, false}, {inv, true}} {
		for _, u := range s.seen[c.sig] {
			if tried++; tried > maxProofs {
				break
			}
			if s.provenEqual(u, v, c.neg) {
				return u, c.neg, true
			}
		}
	}
	s.seen[sig] = append(s.seen[sig], v)
	return 0, false, false
}

// provenEqual reports whether values u and v (negated if neg) agree on
// every assignment of the inputs they depend on, which must be at most
// MaxExhaustiveInputs (Equivalent then enumerates them all).
func (s *simMerger) provenEqual(u, v int32, neg bool) bool {
	if supBig(s.sup[u]) || len(union32(s.sup[u], s.sup[v])) > MaxExhaustiveInputs {
		return false
	}
	a, b := s.nl.Clone(), s.nl.Clone()
	a.Outputs, b.Outputs = []int32{u}, []int32{v}
	if neg {
		b.Gates = append(b.Gates, Gate{Op: gates.NotA, A: v, B: v})
		if b.Labels != nil {
			b.Labels = append(b.Labels, "")
		}
		b.Outputs[0] = int32(b.NumValues() - 1)
	}
	m, err := Equivalent(RemoveDead(a), RemoveDead(b), 0, 0)
	return err == nil && m == nil
}

// union32 returns the sorted union of two sorted sets.
func union32(a, b []int32) []int32 {
	out := make([]int32, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i] < b[j]):
			out, i = append(out, a[i]), i+1
		case i == len(a) || b[j] < a[i]:
			out, j = append(out, b[j]), j+1
		default:
			out, i, j = append(out, a[i]), i+1, j+1
		}
	}
	return out
}
