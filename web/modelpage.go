package web

import (
	"fmt"
	"math/rand/v2"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/experiments"
)

// PageSizes are the square grid sizes a model's page offers after the
// model's training grid.
var PageSizes = []int{32, 64, 128, 256}

// ModelPage describes the page of model m running netlist nl (m's circuit,
// simplified or not), titled name: the model's training grid first, then
// PageSizes. With an experiment e, each size carries e's initial state
// (drawn with seed) and its target where e has a fixed one, and the page
// draws in colour when e does. dlca export -format html writes it, and the
// training page builds it in the tab from the model it trained.
func ModelPage(m *dlca.Model, nl *circuit.Netlist, e *experiments.Experiment, name string, seed uint64) *Page {
	p := &Page{Name: name, Netlist: nl, Boundary: m.Config.Boundary, FireRate: m.Config.FireRate, Seed: seed}
	if e != nil {
		p.Name, p.RGB = fmt.Sprintf("%s (%s)", e.Name, name), e.Colour
	}
	sizes := [][2]int{{m.Config.Height, m.Config.Width}}
	for _, n := range PageSizes {
		if n != m.Config.Height || n != m.Config.Width {
			sizes = append(sizes, [2]int{n, n})
		}
	}
	c := m.Config.Channels
	rng := rand.New(rand.NewPCG(seed, 0))
	for _, hw := range sizes {
		s := Size{H: hw[0], W: hw[1]}
		if e != nil {
			s.Init = bitGrid(e.Init(rng, s.H, s.W, c), s.H, s.W, c)
			if e.Target != nil {
				s.Target, s.TargetChannels = bitGrid(e.Target(s.H, s.W), s.H, s.W, len(e.LossChannels)), e.LossChannels
			}
		}
		p.Sizes = append(p.Sizes, s)
	}
	return p
}

// bitGrid thresholds values laid out [H][W][C] at 0.5, as dlca.BitsOf
// does for the hard circuit's inputs.
func bitGrid(v []float32, h, w, c int) *circuit.Grid {
	return dlca.BitsOf(autograd.New(v, 1, h, w, c)).Boards[0]
}
