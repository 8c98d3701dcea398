package circuit

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dlca/dlca/gates"
)

// mustEqual fails the test if the netlists differ on any input (all inputs
// when there are at most MaxExhaustiveInputs of them).
func mustEqual(t *testing.T, what string, a, b *Netlist) {
	t.Helper()
	if err := b.Validate(); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	m, err := Equivalent(a, b, 256, 1)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if m != nil {
		t.Fatalf("%s changed behaviour: %v", what, m)
	}
}

func TestPassesPreserveBehaviour(t *testing.T) {
	all := append(passes, pass{"simplify", func(nl *Netlist) *Netlist { s, _ := Simplify(nl); return s }})
	for _, p := range all {
		t.Run(p.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, 0))
			for trial := 0; trial < 200; trial++ {
				in := 1 + rng.IntN(12)
				if trial%10 == 0 {
					in = 30 // sampled, not exhaustive
				}
				nl := randomNetlist(rng, in, 1+rng.IntN(60), 1+rng.IntN(4))
				if trial%2 == 0 {
					nl = labelled(nl)
				}
				before := nl.Clone()
				got := p.run(nl)
				if !nl.Equal(before) {
					t.Fatal("pass modified its input")
				}
				if len(got.Gates) > len(nl.Gates) {
					t.Errorf("trial %d: %d gates became %d", trial, len(nl.Gates), len(got.Gates))
				}
				mustEqual(t, p.name, nl, got)
			}
		})
	}
}

// Each pass on a small netlist written to exercise it, with the gates the
// result must have (counted by hand).
func TestPassCases(t *testing.T) {
	g := func(op gates.Op, a, b int32) Gate { return Gate{Op: op, A: a, B: b} }
	cases := []struct {
		name  string
		pass  func(*Netlist) *Netlist
		nl    *Netlist
		gates []Gate
		out   []int32
	}{
		{"A gate is a wire", Rewire,
			&Netlist{NumInputs: 2, Gates: []Gate{g(gates.A, 1, 0), g(gates.And, 2, 0)}, Outputs: []int32{3}},
			[]Gate{g(gates.And, 1, 0)}, []int32{2}},
		{"NOT_B becomes NOT of b", Rewire,
			&Netlist{NumInputs: 2, Gates: []Gate{g(gates.NotB, 0, 1)}, Outputs: []int32{2}},
			[]Gate{g(gates.NotA, 1, 1)}, []int32{2}},
		{"XOR of x with x is FALSE", Rewire,
			&Netlist{NumInputs: 1, Gates: []Gate{g(gates.Xor, 0, 0)}, Outputs: []int32{1}},
			[]Gate{g(gates.False, 0, 0)}, []int32{1}},
		{"AND with 0 is 0", PropagateConstants,
			&Netlist{NumInputs: 2, Gates: []Gate{g(gates.False, 0, 1), g(gates.And, 0, 2)}, Outputs: []int32{3}},
			[]Gate{g(gates.False, 0, 0), g(gates.False, 0, 0)}, []int32{3}},
		{"OR with 1 is 1", PropagateConstants,
			&Netlist{NumInputs: 2, Gates: []Gate{g(gates.True, 0, 0), g(gates.Or, 2, 1)}, Outputs: []int32{3}},
			[]Gate{g(gates.True, 0, 0), g(gates.True, 0, 0)}, []int32{3}},
		{"XOR with 1 is NOT", PropagateConstants,
			&Netlist{NumInputs: 2, Gates: []Gate{g(gates.True, 0, 0), g(gates.Xor, 1, 2)}, Outputs: []int32{3}},
			[]Gate{g(gates.True, 0, 0), g(gates.NotA, 1, 1)}, []int32{3}},
		{"AND with 1 is a wire", PropagateConstants,
			&Netlist{NumInputs: 2, Gates: []Gate{g(gates.True, 0, 0), g(gates.And, 1, 2)}, Outputs: []int32{3}},
			[]Gate{g(gates.True, 0, 0)}, []int32{1}},
		{"AND of NOT is NOT_A_AND_B", FoldInverters,
			&Netlist{NumInputs: 2, Gates: []Gate{g(gates.NotA, 0, 0), g(gates.And, 2, 1)}, Outputs: []int32{3}},
			[]Gate{g(gates.NotA, 0, 0), g(gates.NotAAndB, 0, 1)}, []int32{3}},
		{"NOT of NOT is a wire", FoldInverters,
			&Netlist{NumInputs: 1, Gates: []Gate{g(gates.NotA, 0, 0), g(gates.NotA, 1, 1)}, Outputs: []int32{2}},
			[]Gate{g(gates.NotA, 0, 0)}, []int32{0}},
		{"commuted AND merges", MergeIdentical,
			&Netlist{NumInputs: 2, Gates: []Gate{g(gates.And, 0, 1), g(gates.And, 1, 0), g(gates.Xor, 2, 3)}, Outputs: []int32{4}},
			[]Gate{g(gates.And, 0, 1), g(gates.Xor, 2, 2)}, []int32{3}},
		{"transposed ops merge", MergeIdentical,
			&Netlist{NumInputs: 2, Gates: []Gate{g(gates.AAndNotB, 0, 1), g(gates.NotAAndB, 1, 0)}, Outputs: []int32{2, 3}},
			[]Gate{g(gates.AAndNotB, 0, 1)}, []int32{2, 2}},
		{"unused gates go", RemoveDead,
			&Netlist{NumInputs: 2, Gates: []Gate{g(gates.And, 0, 1), g(gates.Or, 0, 1), g(gates.Xor, 3, 0)}, Outputs: []int32{4}},
			[]Gate{g(gates.Or, 0, 1), g(gates.Xor, 2, 0)}, []int32{3}},
		{"x AND (x OR y) is x", MergeEquivalent,
			&Netlist{NumInputs: 2, Gates: []Gate{g(gates.Or, 0, 1), g(gates.And, 0, 2)}, Outputs: []int32{3}},
			[]Gate{g(gates.Or, 0, 1)}, []int32{0}},
		{"XOR with y twice is x", MergeEquivalent,
			&Netlist{NumInputs: 2, Gates: []Gate{g(gates.Xor, 0, 1), g(gates.Xor, 2, 1)}, Outputs: []int32{3}},
			[]Gate{g(gates.Xor, 0, 1)}, []int32{0}},
		{"NOR of NOTs is the AND", MergeEquivalent,
			&Netlist{NumInputs: 2, Gates: []Gate{g(gates.And, 0, 1), g(gates.NotA, 0, 0), g(gates.NotA, 1, 1), g(gates.Nor, 3, 4)}, Outputs: []int32{2, 5}},
			[]Gate{g(gates.And, 0, 1), g(gates.NotA, 0, 0), g(gates.NotA, 1, 1)}, []int32{2, 2}},
		{"NAND is NOT of an earlier AND", MergeEquivalent,
			&Netlist{NumInputs: 2, Gates: []Gate{g(gates.And, 0, 1), g(gates.NotA, 1, 1), g(gates.NotAOrB, 0, 3)}, Outputs: []int32{2, 4}},
			[]Gate{g(gates.And, 0, 1), g(gates.NotA, 1, 1), g(gates.NotA, 2, 2)}, []int32{2, 4}},
		{"an ignored operand is not a use", RemoveDead,
			&Netlist{NumInputs: 2, Gates: []Gate{g(gates.And, 0, 1), g(gates.A, 1, 2)}, Outputs: []int32{3}},
			[]Gate{g(gates.A, 1, 0)}, []int32{2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := c.pass(c.nl)
			want := &Netlist{NumInputs: c.nl.NumInputs, Gates: c.gates, Outputs: c.out}
			if !got.Equal(want) {
				t.Errorf("got gates %v outputs %v, want %v %v", got.Gates, got.Outputs, c.gates, c.out)
			}
			mustEqual(t, c.name, c.nl, got)
		})
	}
}

func TestSimplifyPaperCheckerboardShape(t *testing.T) {
	// A pass-through-heavy netlist, like a freshly trained model: chains of
	// A gates, a dead branch, a duplicated gate and a constant that decides
	// an OR. Only the XOR of inputs 0 and 1 and its negation matter.
	g := func(op gates.Op, a, b int32) Gate { return Gate{Op: op, A: a, B: b} }
	nl := &Netlist{NumInputs: 9, Gates: []Gate{
		g(gates.A, 0, 5),      // 9: wire to 0
		g(gates.B, 3, 1),      // 10: wire to 1
		g(gates.Xor, 9, 10),   // 11: 0^1
		g(gates.Xor, 1, 0),    // 12: duplicate of 11
		g(gates.False, 2, 3),  // 13: 0
		g(gates.Or, 12, 13),   // 14: 0^1
		g(gates.Nand, 6, 7),   // 15: dead
		g(gates.NotA, 11, 15), // 16: ~(0^1)
		g(gates.A, 14, 16),    // 17: wire to 14
	}, Outputs: []int32{17, 16}}
	nl = labelled(nl)
	s, r := Simplify(nl)
	mustEqual(t, "Simplify", nl, s)
	if len(s.Gates) != 2 {
		t.Fatalf("simplified to %d gates %v, want 2 (XOR and XNOR or NOT)", len(s.Gates), s.Gates)
	}
	if r.Before[len(r.Before)-1].Total != 9 || r.After[len(r.After)-1].Total != 2 {
		t.Errorf("report totals %d -> %d, want 9 -> 2", r.Before[len(r.Before)-1].Total, r.After[len(r.After)-1].Total)
	}
	if r.Before[0].Section != "perception" || r.Before[0].Total != 4 || r.Before[0].Ops[gates.A] != 1 {
		t.Errorf("perception before = %+v, want 4 gates with one A", r.Before[0])
	}
	str := r.String()
	for _, want := range []string{"perception", "update", "before", "after", "XOR"} {
		if !strings.Contains(str, want) {
			t.Errorf("report lacks %q:\n%s", want, str)
		}
	}
}

func TestLifeCircuitIsLife(t *testing.T) {
	nl := LifeCircuit()
	if err := nl.Validate(); err != nil {
		t.Fatal(err)
	}
	nb := make([]uint8, 9)
	for s := 0; s < 512; s++ {
		for i := range nb {
			nb[i] = uint8(s >> i & 1)
		}
		if got, want := nl.Eval(nb)[0], lifeRule(nb); got != want {
			t.Fatalf("neighbourhood %v: circuit %d, rule %d", nb, got, want)
		}
	}
	s, _ := Simplify(nl)
	if len(s.Gates) > len(nl.Gates) {
		t.Errorf("Simplify grew the Life circuit from %d to %d gates", len(nl.Gates), len(s.Gates))
	}
	mustEqual(t, "Simplify(Life)", nl, s)
}

func TestEquivalentFindsMismatch(t *testing.T) {
	for _, in := range []int{3, 9, 25} {
		a := &Netlist{NumInputs: in, Gates: []Gate{{Op: gates.And, A: 0, B: 1}, {Op: gates.And, A: 3, B: 2}}, Outputs: []int32{int32(in + 1)}}
		b := a.Clone()
		b.Gates[1].Op = gates.Nand // differs everywhere
		c := a.Clone()
		c.Gates[1].Op = gates.Xor // differs only where 0 and 1 are both set
		for _, other := range []*Netlist{b, c} {
			m, err := Equivalent(a, other, 64, 3)
			if err != nil || m == nil {
				t.Fatalf("%d inputs: no mismatch found (err %v)", in, err)
			}
			if got, want := a.Eval(m.Inputs)[0], m.Want[0]; got != want {
				t.Errorf("mismatch's Want %d, but first netlist gives %d on %v", want, got, m.Inputs)
			}
			if got := other.Eval(m.Inputs)[0]; got != m.Got[0] || got == m.Want[0] {
				t.Errorf("mismatch %v is not one: second netlist gives %d", m, got)
			}
		}
		if m, _ := Equivalent(a, a.Clone(), 64, 3); m != nil {
			t.Errorf("a netlist differs from its copy: %v", m)
		}
	}
	if _, err := Equivalent(LifeCircuit(), &Netlist{NumInputs: 2, Outputs: []int32{0}}, 1, 1); err == nil {
		t.Error("no error comparing netlists of different shapes")
	}
}

// An output that differs on one input vector in 2^12 of a 72-input
// netlist: random sampling would likely miss it, but the output depends on
// 12 inputs only, so Equivalent tries all their assignments.
func TestEquivalentEnumeratesSmallSupports(t *testing.T) {
	and12 := &Netlist{NumInputs: 72}
	prev := int32(0)
	for i := int32(1); i < 12; i++ {
		and12.Gates = append(and12.Gates, Gate{Op: gates.And, A: prev, B: i * 5})
		prev = int32(72 + len(and12.Gates) - 1)
	}
	and12.Outputs = []int32{prev, 3}
	never := &Netlist{NumInputs: 72, Gates: []Gate{{Op: gates.False}}, Outputs: []int32{72, 3}}
	m, err := Equivalent(and12, never, 1, 1)
	if err != nil || m == nil {
		t.Fatalf("no mismatch found (err %v)", err)
	}
	if and12.Eval(m.Inputs)[0] != 1 || never.Eval(m.Inputs)[0] != 0 {
		t.Errorf("mismatch %v is not one", m)
	}
}
