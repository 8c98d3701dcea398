package dlca

import (
	"github.com/dlca/dlca/gates"
)

// Gate is one gate of a Netlist: Op applied to values A and B.
type Gate struct {
	Op gates.Op `json:"op"`
	A  int32    `json:"a"`
	B  int32    `json:"b"`
}

// Netlist is one cell's hard update rule as a flat, topologically ordered
// list of gates: plain data for simulators and exporters.
//
// Values are numbered inputs first: value n*C + c (n < 9) is channel c of
// position n of the 3x3 neighbourhood (row-major, 4 = the cell itself); value
// NumInputs + i is the output of Gates[i], which reads only inputs and earlier
// gates. Outputs[c] is the value that becomes channel c of the new state.
type Netlist struct {
	NumInputs int     `json:"num_inputs"`
	Gates     []Gate  `json:"gates"`
	Outputs   []int32 `json:"outputs"`
}

// Netlist discretises the model (every gate takes its argmax op, see
// gates.Layer.HardOps) and flattens one cell's circuit: every kernel applied
// to every channel, then the update network. Pass-through gates (A, B) are
// replaced by the value they pass, and gates that no output depends on are
// dropped, so the netlist computes exactly the hard model's rule with only
// the gates that matter.
func (m *Model) Netlist() *Netlist {
	cfg := m.Config
	c, k := cfg.Channels, cfg.Kernels
	b := &netBuilder{nl: &Netlist{NumInputs: NeighbourhoodSize * c}}

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
				x = b.layer(ops[i][kk*l.Out:(kk+1)*l.Out], l.Wiring, x)
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
		x = b.layer(l.HardOps(), l.Wiring, x)
	}
	b.nl.Outputs = x
	return b.nl.pruned()
}

// netBuilder appends gates to a netlist, resolving pass-through gates to the
// value they pass.
type netBuilder struct{ nl *Netlist }

// layer adds one group's gates reading the values x through w and returns
// the values of their outputs.
func (b *netBuilder) layer(ops []gates.Op, w gates.Wiring, x []int32) []int32 {
	out := make([]int32, len(ops))
	for i, op := range ops {
		a, bv := x[w.A[i]], x[w.B[i]]
		switch op {
		case gates.A:
			out[i] = a
		case gates.B:
			out[i] = bv
		default:
			out[i] = int32(b.nl.NumInputs + len(b.nl.Gates))
			b.nl.Gates = append(b.nl.Gates, Gate{Op: op, A: a, B: bv})
		}
	}
	return out
}

// pruned returns the netlist without the gates that no output depends on,
// renumbered in the same order.
func (nl *Netlist) pruned() *Netlist {
	live := make([]bool, len(nl.Gates))
	mark := func(v int32) {
		if g := int(v) - nl.NumInputs; g >= 0 {
			live[g] = true
		}
	}
	for _, o := range nl.Outputs {
		mark(o)
	}
	for i := len(nl.Gates) - 1; i >= 0; i-- {
		if live[i] && usesOperands(nl.Gates[i].Op) {
			mark(nl.Gates[i].A)
			mark(nl.Gates[i].B)
		}
	}
	out := &Netlist{NumInputs: nl.NumInputs}
	renum := make([]int32, nl.NumInputs+len(nl.Gates))
	for v := range nl.NumInputs {
		renum[v] = int32(v)
	}
	for i, g := range nl.Gates {
		if !live[i] {
			continue
		}
		if !usesOperands(g.Op) {
			g.A, g.B = 0, 0
		} else {
			g.A, g.B = renum[g.A], renum[g.B]
		}
		renum[nl.NumInputs+i] = int32(out.NumInputs + len(out.Gates))
		out.Gates = append(out.Gates, g)
	}
	for _, o := range nl.Outputs {
		out.Outputs = append(out.Outputs, renum[o])
	}
	return out
}

// usesOperands reports whether op reads its inputs (all but the constants).
func usesOperands(op gates.Op) bool { return op != gates.False && op != gates.True }

// truthMasks[o][2a+b] is all ones where op o outputs 1 for inputs a, b: the
// truth table (gates.Op.Truth) as word masks, so that any op evaluates
// without a branch (a switch over random ops mispredicts on most gates).
var truthMasks = func() (t [gates.NumOps][4]uint64) {
	for o := range gates.Op(gates.NumOps) {
		for k := range 4 {
			if o.Truth(uint8(k>>1), uint8(k&1)) == 1 {
				t[o][k] = ^uint64(0)
			}
		}
	}
	return t
}()

// Eval evaluates the netlist on 64 samples at once: in holds NumInputs words
// (bit i of word v is value v of sample i), vals is scratch of at least
// NumInputs+len(Gates) words, and out receives one word per output.
func (nl *Netlist) Eval(out, in, vals []uint64) {
	vals = vals[:nl.NumInputs+len(nl.Gates)]
	copy(vals, in[:nl.NumInputs])
	for i, g := range nl.Gates {
		a, b := vals[g.A], vals[g.B]
		m := &truthMasks[g.Op&(gates.NumOps-1)]
		vals[nl.NumInputs+i] = m[0]&^a&^b | m[1]&^a&b | m[2]&a&^b | m[3]&a&b
	}
	for c, o := range nl.Outputs {
		out[c] = vals[o]
	}
}
