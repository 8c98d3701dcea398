package circuit

import (
	"testing"

	"github.com/dlca/dlca/gates"
)

// Rewrite replaces textbook circuits by their smallest forms, and counts a
// gate that something outside the cone still reads as staying.
func TestRewriteFindsSmallestForms(t *testing.T) {
	g := func(op gates.Op, a, b int32) Gate { return Gate{Op: op, A: a, B: b} }
	cases := []struct {
		name string
		nl   *Netlist
		want int // gates after Rewrite, counted by hand
	}{
		{"XOR from AND and OR", &Netlist{NumInputs: 2, Gates: []Gate{
			g(gates.AAndNotB, 0, 1), g(gates.NotAAndB, 0, 1), g(gates.Or, 2, 3)}, Outputs: []int32{4}}, 1},
		{"majority as three ANDs and two ORs", &Netlist{NumInputs: 3, Gates: []Gate{
			g(gates.And, 0, 1), g(gates.And, 0, 2), g(gates.And, 1, 2), g(gates.Or, 3, 4), g(gates.Or, 6, 5)},
			Outputs: []int32{7}}, 4},
		{"majority whose x AND y is also an output", &Netlist{NumInputs: 3, Gates: []Gate{
			g(gates.And, 0, 1), g(gates.And, 0, 2), g(gates.And, 1, 2), g(gates.Or, 3, 4), g(gates.Or, 6, 5)},
			Outputs: []int32{7, 3}}, 4}, // x AND y stays; the smallest majority reuses it
		{"a smallest circuit is left alone", &Netlist{NumInputs: 3, Gates: []Gate{
			g(gates.Xor, 0, 1), g(gates.Xor, 3, 2)}, Outputs: []int32{4}}, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Rewrite(c.nl)
			mustEqual(t, c.name, c.nl, got)
			if len(got.Gates) != c.want {
				t.Errorf("%d gates became %d %v, want %d", len(c.nl.Gates), len(got.Gates), got.Gates, c.want)
			}
		})
	}
}
