package main

import (
	"fmt"

	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/internal/memlimit"
	"github.com/dlca/dlca/viewer/painter"
)

// evalMemory estimates the memory dlca eval adds to its process on an h x w
// grid (memlimit.WithOverhead of the live heap): the initial state as
// floats, the rollout's states (bits, or the soft model's one step of
// activations, bptt.EstimateRollout) and, with a GIF, one frame: the
// drawn channels as floats, its picture and the picture mapped to the
// palette. -states streams a row at a time, next to nothing.
func evalMemory(m *dlca.Model, h, w int, soft, gif bool, o painter.Options) int64 {
	cells := int64(h) * int64(w)
	c := int64(m.Config.Channels)
	live := cells * c * 4
	if soft {
		live += bptt.EstimateRollout(m, h, w).Live
	} else {
		live += 3*(cells*c+63)/64*8 + cells // the bits of the initial, current and next states; a fire mask
	}
	if gif {
		px := o.Size(h, w)
		live += int64(px.X) * int64(px.Y) * (4 + 1)
		if !soft {
			live += cells * int64(drawnChannels(o, int(c))) * 4
		}
	}
	return memlimit.WithOverhead(live)
}

// checkEvalMemory refuses, naming a grid that fits, an eval whose
// estimated memory exceeds maxMemory, or what this process may take
// (memlimit.Check, which sets the garbage collector the estimate counts on).
func checkEvalMemory(m *dlca.Model, g grid, soft, gif bool, o painter.Options, maxMemory string) error {
	return memlimit.Check(maxMemory, func(limit int64, source string) error { return refuseEval(m, g, soft, gif, o, limit, source) })
}

// refuseEval is checkEvalMemory's comparison with limit, which comes from source.
func refuseEval(m *dlca.Model, g grid, soft, gif bool, o painter.Options, limit int64, source string) error {
	// A batch's states roll out together: as many grids, one above the other.
	need := evalMemory(m, g.h*g.states(), g.w, soft, gif, o)
	if need <= limit {
		return nil
	}
	// The estimate grows with the grid.
	hint := g.smaller(func(h, w int) bool { return evalMemory(m, h, w, soft, gif, o) <= limit })
	if soft {
		hint += ", or drop -soft (the circuit on bits needs far less)"
	}
	return fmt.Errorf("%s: the %s rollout needs about %s but %s is %s: %s",
		g, map[bool]string{true: "soft", false: "hard"}[soft], memlimit.FormatBytes(need), source, memlimit.FormatBytes(limit), hint)
}
