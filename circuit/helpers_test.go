package circuit

import (
	"math/rand/v2"

	"github.com/dlca/dlca/gates"
)

// randomNetlist draws a netlist of n gates over in inputs with out
// outputs; every op occurs, operands are random earlier values, and a
// share of operands repeat, so every simplification has work to do.
func randomNetlist(rng *rand.Rand, in, n, out int) *Netlist {
	nl := &Netlist{NumInputs: in}
	for k := 0; k < n; k++ {
		pick := func() int32 {
			if k > 0 && rng.IntN(3) == 0 {
				return int32(in + k - 1 - rng.IntN(min(k, 4))) // a recent gate
			}
			return int32(rng.IntN(in + k))
		}
		g := Gate{Op: gates.Op(rng.IntN(gates.NumOps)), A: pick(), B: pick()}
		if rng.IntN(8) == 0 {
			g.B = g.A
		}
		nl.Gates = append(nl.Gates, g)
	}
	for j := 0; j < out; j++ {
		nl.Outputs = append(nl.Outputs, int32(in+n-1-rng.IntN(min(n, 3*out))))
	}
	return nl
}

// labelled gives the netlist two sections, "perception" then "update".
func labelled(nl *Netlist) *Netlist {
	nl.Labels = make([]string, len(nl.Gates))
	for k := range nl.Labels {
		nl.Labels[k] = "perception"
		if k >= len(nl.Gates)/2 {
			nl.Labels[k] = "update"
		}
	}
	return nl
}

// wireConstCA is a 2-channel rule with no real gate: channel 0 takes the
// west neighbour's channel 1, channel 1 is TRUE.
func wireConstCA() *Netlist {
	return &Netlist{NumInputs: 18, Gates: []Gate{{Op: gates.True}}, Outputs: []int32{3*2 + 1, 18}}
}
