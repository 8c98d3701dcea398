package dlca

import (
	"testing"

	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/gates"
)

// The netlist of a model with random logits is a valid CA rule whose gates
// are labelled by network: perception gates first, reading only inputs and
// perception gates, each network at most as many gates as the model has
// active gates there (times the channels for the kernels), none dead.
func TestNetlistLabelsNetworks(t *testing.T) {
	cfg := tinyConfig(circuit.Zero)
	m := tinyModel(t, cfg, 4)
	nl := m.Netlist()
	if err := nl.Validate(); err != nil || !nl.IsCA() || nl.Channels() != cfg.Channels {
		t.Fatalf("netlist not a %d-channel CA rule: %v (%d inputs, %d outputs)", cfg.Channels, err, nl.NumInputs, len(nl.Outputs))
	}
	if len(nl.Labels) != len(nl.Gates) {
		t.Fatalf("%d labels for %d gates", len(nl.Labels), len(nl.Gates))
	}
	active := func(ls []*gates.Layer) (n int) {
		for _, l := range ls {
			n += l.ActiveGates()
		}
		return n
	}
	limit := map[string]int{PerceptionLabel: cfg.Channels * active(m.Perception), UpdateLabel: active(m.Update)}
	count := map[string]int{}
	for k, g := range nl.Gates {
		l := nl.Labels[k]
		count[l]++
		if l == PerceptionLabel && k > 0 && nl.Labels[k-1] == UpdateLabel {
			t.Fatalf("perception gate %d after an update gate", k)
		}
		if l != PerceptionLabel {
			continue
		}
		for _, v := range []int32{g.A, g.B} {
			if int(v) >= nl.NumInputs && nl.Labels[int(v)-nl.NumInputs] != PerceptionLabel {
				t.Fatalf("perception gate %d reads value %d, an update gate", k, v)
			}
		}
	}
	for l, n := range count {
		if _, ok := limit[l]; !ok || n == 0 || n > limit[l] {
			t.Fatalf("%d gates labelled %q, want 1..%d (labels perception and update only)", n, l, limit[l])
		}
	}
	if len(count) != 2 {
		t.Fatalf("labels %v, want both networks", count)
	}
	if !circuit.RemoveDead(nl).Equal(nl) {
		t.Fatal("the netlist keeps gates that reach no output")
	}
	rows := circuit.CountGates(nl)
	if len(rows) != 3 || rows[0].Section != PerceptionLabel || rows[1].Section != UpdateLabel || rows[0].Total != count[PerceptionLabel] {
		t.Fatalf("circuit.CountGates rows %+v, want perception, update, all", rows)
	}
}
