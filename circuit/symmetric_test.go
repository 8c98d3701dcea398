package circuit

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/dlca/dlca/gates"
)

// tableNetlist returns a netlist of in inputs computing f by Shannon
// expansion on every input: a deliberately wasteful circuit (three gates
// per node of a full decision tree) for the passes to shrink.
func tableNetlist(in int, f func(r int) bool) *Netlist {
	nl := &Netlist{NumInputs: in}
	add := func(op gates.Op, a, b int32) int32 {
		nl.Gates = append(nl.Gates, Gate{Op: op, A: a, B: b})
		return int32(nl.NumValues() - 1)
	}
	var tree func(v, r int) int32
	tree = func(v, r int) int32 {
		if v == in {
			return add(map[bool]gates.Op{false: gates.False, true: gates.True}[f(r)], 0, 0)
		}
		lo, hi := tree(v+1, r), tree(v+1, r|1<<v)
		return add(gates.Or, add(gates.NotAAndB, int32(v), lo), add(gates.And, int32(v), hi))
	}
	nl.Outputs = []int32{tree(0, 0)}
	return nl
}

// Random rules that depend on how many of some inputs are set, and on the
// others: Symmetrize finds the counted inputs, rebuilds the rule far
// smaller and keeps its function on every input.
func TestSymmetrizeRebuildsCountingRules(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 0))
	rebuilt := 0
	for trial := range 100 {
		in := 3 + rng.IntN(7)
		counted := rng.Perm(in)[:3+rng.IntN(in-2)] // at least three inputs
		var mask int
		for _, i := range counted {
			mask |= 1 << i
		}
		rule := rng.Uint64() // bit n*2^rest + rest inputs: the value
		f := func(r int) bool {
			n, rest, b := bits.OnesCount(uint(r&mask)), 0, 0
			for i := range in {
				if mask>>i&1 == 0 {
					rest |= (r >> i & 1) << b
					b++
				}
			}
			return rule>>((n<<b|rest)%64)&1 == 1
		}
		nl := tableNetlist(in, f)
		if trial%2 == 0 {
			nl = labelled(nl)
		}
		s := Symmetrize(PropagateConstants(nl))
		mustEqual(t, "Symmetrize", nl, s) // which also validates s's labels
		if s.Labels != nil && !slices.Contains(s.Labels, "update") {
			t.Errorf("trial %d: the rebuilt output's gates lost its label %q", trial, "update")
		}
		if len(s.Gates) < len(nl.Gates) {
			rebuilt++
		}
		if trial == 0 && len(s.Gates) >= len(nl.Gates) {
			t.Errorf("the first rule (%d inputs, %d counted) kept its %d gates", in, len(counted), len(nl.Gates))
		}
	}
	if rebuilt < 50 {
		t.Errorf("only %d of 100 counting rules were rebuilt", rebuilt)
	}
}

// The adder tree counts: its bits give the number of set inputs for every
// assignment of up to 9 inputs.
func TestCountBits(t *testing.T) {
	for n := 1; n <= 9; n++ {
		k := bits.Len(uint(n))
		nl := &Netlist{NumInputs: n}
		xs := make([]int32, n)
		for i := range xs {
			xs[i] = int32(i)
		}
		nl.Outputs = countBits(xs, k, func(op gates.Op, a, b int32) int32 {
			nl.Gates = append(nl.Gates, Gate{Op: op, A: a, B: b})
			return int32(nl.NumValues() - 1)
		})
		in := make([]uint8, n)
		for r := range 1 << n {
			for i := range in {
				in[i] = uint8(r >> i & 1)
			}
			got := 0
			for b, v := range nl.Eval(in) {
				got |= int(v) << b
			}
			if want := bits.OnesCount(uint(r)); got != want {
				t.Fatalf("%d inputs %v: count %d, want %d", n, in, got, want)
			}
		}
	}
}

// synthesize builds, for random functions of up to maxResidual variables
// with random don't-cares, a circuit that agrees with them wherever they
// care, with as many gates as its recipe says.
func TestSynthesizeAgreesWhereItCares(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 0))
	for trial := range 200 {
		n := rng.IntN(maxResidual + 1)
		p := partial{val: make([]bool, 1<<n), care: make([]bool, 1<<n), n: n}
		// Mostly 0s, mostly 1s or even: so that cofactors are often
		// constant and every way of joining them is tried.
		ones := []int{1, 8, 15}[trial%3]
		for r := range p.val {
			p.val[r], p.care[r] = rng.IntN(16) < ones, rng.IntN(4) > 0
		}
		rc := synthesize(p)
		nl := &Netlist{NumInputs: max(n, 1)}
		vars := make([]int32, n)
		for i := range vars {
			vars[i] = int32(i)
		}
		nl.Outputs = []int32{rc.build(vars, func(op gates.Op, a, b int32) int32 {
			nl.Gates = append(nl.Gates, Gate{Op: op, A: a, B: b})
			return int32(nl.NumValues() - 1)
		})}
		if err := nl.Validate(); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if _, constant := rc.constant(); !constant && len(nl.Gates) != rc.cost {
			t.Errorf("trial %d: %d gates built, recipe says %d", trial, len(nl.Gates), rc.cost)
		}
		in := make([]uint8, nl.NumInputs)
		for r := range p.val {
			for i := range in {
				in[i] = uint8(r >> i & 1)
			}
			if p.care[r] && nl.Eval(in)[0] != bit(p.val[r]) {
				t.Fatalf("trial %d (%d variables): row %d gives %d, want %v", trial, n, r, nl.Eval(in)[0], p.val[r])
			}
		}
	}
}
