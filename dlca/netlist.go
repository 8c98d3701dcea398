package dlca

import (
	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/gates"
)

// Section labels of the netlist's gates (circuit.Netlist.Labels), so that
// circuit's reports count each network on its own.
const (
	PerceptionLabel = "perception"
	UpdateLabel     = "update"
)

// Netlist discretises the model (every gate takes its argmax op, see
// gates.Layer.HardOps) and flattens one cell's circuit: every kernel applied
// to every channel, then the update network, numbered as circuit.Netlist
// documents (value n*C + c is channel c of neighbourhood position n,
// row-major, 4 = the cell itself). Each gate is labelled PerceptionLabel or
// UpdateLabel. Pass-through gates (A, B) are replaced by the value they pass,
// and gates that no output depends on are dropped (circuit.RemoveDead), so
// the netlist computes exactly the hard model's rule with only the gates
// that matter.
func (m *Model) Netlist() *circuit.Netlist {
	cfg := m.Config
	c, k := cfg.Channels, cfg.Kernels
	b := &netBuilder{nl: &circuit.Netlist{NumInputs: NeighbourhoodSize * c, Labels: []string{}}}

	var ops [][]gates.Op // per perception layer, [kernel][gate]
	for _, l := range m.Perception {
		ops = append(ops, l.HardOps())
	}
	// perc[(ch*K + kk)*S + s]: the value of kernel kk's bit s on channel ch.
	var perc []int32
	for ch := range c {
		for kk := range k {
			// The kernel's inputs on this channel: the 9 neighbourhood values.
			x := make([]int32, NeighbourhoodSize)
			for n := range x {
				x[n] = int32(n*c + ch)
			}
			for i, l := range m.Perception {
				x = b.layer(ops[i][kk*l.Out:(kk+1)*l.Out], l.Wiring, x, PerceptionLabel)
			}
			perc = append(perc, x...)
		}
	}
	s := cfg.PerceptionBits()
	x := make([]int32, cfg.UpdateInputs())
	for ch := range c {
		x[ch] = int32(Centre*c + ch)
		for kk := range k {
			for bit := range s {
				x[c+(ch*s+bit)*k+kk] = perc[(ch*k+kk)*s+bit]
			}
		}
	}
	for _, l := range m.Update {
		x = b.layer(l.HardOps(), l.Wiring, x, UpdateLabel)
	}
	b.nl.Outputs = x
	return circuit.RemoveDead(b.nl)
}

// netBuilder appends gates to a netlist, resolving pass-through gates to the
// value they pass.
type netBuilder struct{ nl *circuit.Netlist }

// layer adds one group's gates, labelled label, reading the values x
// through w and returns the values of their outputs.
func (b *netBuilder) layer(ops []gates.Op, w gates.Wiring, x []int32, label string) []int32 {
	out := make([]int32, len(ops))
	for i, op := range ops {
		a, bv := x[w.A[i]], x[w.B[i]]
		switch op {
		case gates.A:
			out[i] = a
		case gates.B:
			out[i] = bv
		default:
			out[i] = int32(b.nl.NumValues())
			b.nl.Gates = append(b.nl.Gates, circuit.Gate{Op: op, A: a, B: bv})
			b.nl.Labels = append(b.nl.Labels, label)
		}
	}
	return out
}
