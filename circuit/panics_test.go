package circuit

import (
	"strings"
	"testing"
)

func TestProgrammerErrorsPanic(t *testing.T) {
	life := LifeCircuit()
	g1, g2 := NewGrid(3, 3, 1), NewGrid(3, 4, 1)
	cases := []struct {
		name, want string
		f          func()
	}{
		{"NewSim of a non-CA netlist", "cellular-automaton", func() { NewSim(&Netlist{NumInputs: 2, Outputs: []int32{0}}, Zero, 1) }},
		{"NewSim of a malformed netlist", "reads values", func() {
			NewSim(&Netlist{NumInputs: 9, Gates: []Gate{{A: 0, B: 9}}, Outputs: []int32{9}}, Zero, 1)
		}},
		{"Step on grids of two shapes", "differ in shape", func() { NewSim(life, Zero, 1).Step(g1, g2) }},
		{"Step in place", "distinct", func() { NewSim(life, Zero, 1).Step(g1, g1) }},
		{"Step with the wrong channel count", "channels", func() { NewSim(life, Zero, 1).Step(NewGrid(2, 2, 2), NewGrid(2, 2, 2)) }},
		{"StepFire with a mask of another size", "fire mask", func() { NewSim(life, Zero, 1).StepFire(g1, g1.Clone(), g2) }},
		{"Eval with too few bits", "input bits", func() { life.Eval(make([]uint8, 3)) }},
		{"EvalWords with too few words", "words", func() { life.EvalWords(make([]uint64, 1), make([]uint64, 3)) }},
		{"NewGrid of no cells", "positive", func() { NewGrid(0, 3, 1) }},
		{"FromCells with too few bits", "bits", func() { FromCells(2, 2, 1, make([]uint8, 3)) }},
		{"StepLife on two channels", "1 channel", func() { StepLife(NewGrid(2, 2, 2), NewGrid(2, 2, 2), Zero, 1) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				r := recover()
				msg, _ := r.(string)
				if r == nil || !strings.HasPrefix(msg, "circuit: ") || !strings.Contains(msg, c.want) {
					t.Errorf("panic %v, want a circuit: message mentioning %q", r, c.want)
				}
			}()
			c.f()
		})
	}
}
