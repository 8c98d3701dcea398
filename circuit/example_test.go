package circuit_test

import (
	"fmt"
	"strings"

	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/gates"
)

// A pass-through, a double negation and an OR with FALSE around one AND:
// Simplify leaves the AND alone.
func ExampleSimplify() {
	nl := &circuit.Netlist{NumInputs: 9, Gates: []circuit.Gate{
		{Op: gates.And, A: 0, B: 1},    // value 9
		{Op: gates.NotA, A: 9, B: 9},   // 10
		{Op: gates.A, A: 10, B: 3},     // 11: passes 10 through
		{Op: gates.NotA, A: 11, B: 11}, // 12
		{Op: gates.False},              // 13
		{Op: gates.Or, A: 12, B: 13},   // 14
	}, Outputs: []int32{14}}
	s, report := circuit.Simplify(nl)
	fmt.Println(len(nl.Gates), "gates ->", len(s.Gates), "gate:", s.Gates[0].Op, s.Gates[0].A, s.Gates[0].B)
	fmt.Println("before:", report.Before[0].Total, "after:", report.After[0].Total)
	// Output:
	// 6 gates -> 1 gate: AND 0 1
	// before: 6 after: 1
}

// A glider on a periodic 6x6 grid moves one cell south-east every four
// steps. LifeCircuit is the tests' hand-made Game of Life netlist
// (life_test.go); a learned one comes from dlca.Model.Netlist.
func ExampleSim() {
	g := circuit.NewGrid(6, 6, 1)
	for _, p := range [][2]int{{0, 1}, {1, 2}, {2, 0}, {2, 1}, {2, 2}} {
		g.Set(p[0], p[1], 0, 1)
	}
	sim := circuit.NewSim(circuit.LifeCircuit(), circuit.Periodic, 1)
	g = sim.Run(g, 4)
	for y := range g.H {
		var row strings.Builder
		for x := range g.W {
			row.WriteByte(".#"[g.Get(y, x, 0)])
		}
		fmt.Println(row.String())
	}
	// Output:
	// ......
	// ..#...
	// ...#..
	// .###..
	// ......
	// ......
}
