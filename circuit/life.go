package circuit

import "github.com/dlca/dlca/gates"

// LifeCircuit returns Conway's Game of Life as a netlist of 28 two-input
// gates (one channel, 9 inputs): an adder tree counts the eight neighbours
// modulo 8 into bits s0, s1, s2, and the cell is alive next when
// s1 AND NOT s2 AND (s0 OR alive), that is, when the count is 3, or 2 and
// the cell is alive (a count of 8 wraps to 0 and correctly gives death).
// Gates are labelled "count" and "rule".
func LifeCircuit() *Netlist {
	nl := &Netlist{NumInputs: 9, Labels: []string{}}
	section := "count"
	g := func(op gates.Op, a, b int32) int32 {
		nl.Gates = append(nl.Gates, Gate{Op: op, A: a, B: b})
		nl.Labels = append(nl.Labels, section)
		return int32(nl.NumValues() - 1)
	}
	full := func(x, y, z int32) (sum, carry int32) {
		xy := g(gates.Xor, x, y)
		return g(gates.Xor, xy, z), g(gates.Or, g(gates.And, x, y), g(gates.And, xy, z))
	}
	half := func(x, y int32) (sum, carry int32) {
		return g(gates.Xor, x, y), g(gates.And, x, y)
	}
	// Neighbours are inputs 0..8 except the centre, 4.
	sa, ca := full(0, 1, 2)
	sb, cb := full(3, 5, 6)
	sc, cc := half(7, 8)
	s0, cd := full(sa, sb, sc)
	u, v := full(ca, cb, cc) // the weight-2 carries, without cd
	s1, w := half(u, cd)
	s2 := g(gates.Xor, v, w)
	section = "rule"
	nl.Outputs = []int32{g(gates.And, g(gates.AAndNotB, s1, s2), g(gates.Or, s0, 4))}
	return nl
}

// lifeRule is Conway's rule on a neighbourhood's 9 bits, written with
// integer counting as an independent reference.
func lifeRule(nb []uint8) uint8 {
	n := 0
	for i, b := range nb {
		if i != 4 {
			n += int(b)
		}
	}
	if n == 3 || n == 2 && nb[4] == 1 {
		return 1
	}
	return 0
}
