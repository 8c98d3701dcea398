package smallest

import (
	"math/rand/v2"
	"testing"
)

// There are 222 NPN classes of functions of four inputs (a known count),
// and the table has a circuit computing each representative.
func TestTableComputesEveryClass(t *testing.T) {
	reps := Classes()
	if len(reps) != 222 {
		t.Fatalf("%d classes, want 222", len(reps))
	}
	for i, c := range table {
		if err := c.Validate(); err != nil {
			t.Fatalf("class %#04x: %v", reps[i], err)
		}
		if got := c.Eval(); got != reps[i] {
			t.Errorf("class %#04x: the circuit computes %#04x", reps[i], got)
		}
	}
}

// knuthCost[c] is how many of the 65,536 functions of four variables need
// exactly c two-input gates, negated inputs and outputs free (TAOCP 4A,
// 7.1.2, the table of C(f) for n = 4).
var knuthCost = [8]int{10, 60, 456, 2474, 10624, 24184, 25008, 2720}

// For gives a circuit computing each function, of the size Size says, and
// the sizes are distributed exactly as Knuth's exact costs: since no circuit
// can be smaller than its function's cost, each one is a smallest.
func TestForEveryFunctionIsSmallest(t *testing.T) {
	var sizes [8]int
	for f := range 1 << 16 {
		c := For(TT(f))
		if err := c.Validate(); err != nil {
			t.Fatalf("%#04x: %v", f, err)
		}
		if got := c.Eval(); got != TT(f) {
			t.Fatalf("For(%#04x) computes %#04x", f, got)
		}
		if c.Not && c.Out != Const && c.Out >= 4 {
			t.Fatalf("For(%#04x) negates a gate's output instead of its op", f)
		}
		if Size(TT(f)) != len(c.Gates) {
			t.Fatalf("Size(%#04x) = %d, For has %d gates", f, Size(TT(f)), len(c.Gates))
		}
		sizes[len(c.Gates)]++
	}
	if sizes != knuthCost {
		t.Errorf("functions by circuit size %v, want Knuth's costs %v", sizes, knuthCost)
	}
}

func TestTransformInverse(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	if len(Transforms) != 768 {
		t.Fatalf("%d transforms, want 768", len(Transforms))
	}
	for _, tr := range Transforms {
		g := TT(rng.Uint32())
		if got := tr.Inverse().Apply(tr.Apply(g)); got != g {
			t.Fatalf("%+v: inverse gives %#04x from %#04x", tr, got, g)
		}
		c := Circuit{Gates: []Gate{{Op: 6, A: 0, B: 1}, {Op: 2, A: 4, B: 2}, {Op: 14, A: 5, B: 3}}, Out: 6}
		if got, want := tr.Circuit(c).Eval(), tr.Apply(c.Eval()); got != want {
			t.Fatalf("%+v: the transformed circuit computes %#04x, want %#04x", tr, got, want)
		}
	}
}
