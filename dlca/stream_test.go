package dlca

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/jaxrand"
)

// TestJAXWiringOrder writes the notebook's key chain out by hand
// (init_state, init_diff_logic_ca, init_logic_gate_network,
// init_perceive_network) and holds the JAX stream's wirings to it: the
// update network's keys come first, one split per layer, and each layer's
// wiring is its pairs in the order of one permutation.
func TestJAXWiringOrder(t *testing.T) {
	cfg := tinyConfig(0)
	cfg.RNG, cfg.Seed = StreamJAX, 23
	m, err := New(cfg, autograd.Float32)
	if err != nil {
		t.Fatal(err)
	}
	// key, subkey = split(PRNGKey(23)); params from subkey.
	_, init := jaxrand.NewKey(23).Split2()
	// init_diff_logic_ca: key, subkey = split(key) -> update network;
	// key, subkey = split(key) -> perception network.
	k, updateKey := init.Split2()
	_, perceptionKey := k.Split2()
	// Each network: key, subkey = split(key) before every layer.
	_, moore := perceptionKey.Split2()
	neighbours := []int32{0, 1, 2, 3, 5, 6, 7, 8}
	var wantA []int32
	for _, p := range moore.Permutation(8) {
		wantA = append(wantA, neighbours[p])
	}
	if got := m.Perception[0].Wiring.A; !slices.Equal(got, wantA) {
		t.Errorf("perception/0 a = %v, want %v", got, wantA)
	}
	// The update network's first layer: unique pairs over U inputs,
	// (0,1), (2,3), ... then (1,2), (3,4), ... permuted by its key.
	_, first := updateKey.Split2()
	u := cfg.UpdateInputs()
	var pairs [][2]int32
	for i := 0; i+1 < u; i += 2 {
		pairs = append(pairs, [2]int32{int32(i), int32(i + 1)})
	}
	for i := 1; i+1 < u; i += 2 {
		pairs = append(pairs, [2]int32{int32(i), int32(i + 1)})
	}
	l := m.Update[0]
	for k, p := range first.Permutation(l.Out) {
		if l.Wiring.A[k] != pairs[p][0] || l.Wiring.B[k] != pairs[p][1] {
			t.Fatalf("update/0 gate %d reads (%d, %d), want pair %d = %v", k, l.Wiring.A[k], l.Wiring.B[k], p, pairs[p])
		}
	}
}

// TestStreamRecorded: the default stream leaves the model file as it was,
// the JAX stream is written and read back, and an unknown one is refused.
func TestStreamRecorded(t *testing.T) {
	cfg := tinyConfig(0)
	pcg, err := New(cfg, autograd.Float32)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := pcg.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), `"rng"`) {
		t.Error("a PCG model file names its stream; files must stay as they were")
	}
	named := cfg
	named.RNG = StreamPCG
	if m, _ := New(named, autograd.Float32); !slices.Equal(m.Update[0].Wiring.A, pcg.Update[0].Wiring.A) {
		t.Error(`rng "pcg" draws another wiring than the default`)
	}
	cfg.RNG = StreamJAX
	jax, err := New(cfg, autograd.Float32)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(jax.Update[0].Wiring.A, pcg.Update[0].Wiring.A) {
		t.Error("the JAX stream draws the PCG stream's wiring")
	}
	buf.Reset()
	if err := jax.Write(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := Read(&buf, autograd.Float32)
	if err != nil || back.Config.RNG != StreamJAX {
		t.Fatalf("read back: rng %q, %v", back.Config.RNG, err)
	}
	cfg.RNG = "mt19937"
	if _, err := New(cfg, autograd.Float32); err == nil || !strings.Contains(err.Error(), "rng") {
		t.Errorf("unknown stream: %v", err)
	}
}

// TestJAXFireMasks: each step splits the key and fires the cells whose
// uniform draw is at most the rate.
func TestJAXFireMasks(t *testing.T) {
	key := jaxrand.Key{5, 6}
	f := NewJAXFireMasks(key.Uint64(), 0.6)
	for step := range 3 {
		var sub jaxrand.Key
		key, sub = key.Split2()
		u := sub.Uniform(10)
		got := f.Next(10)
		for i := range got {
			if got[i] != (u[i] <= float32(0.6)) {
				t.Fatalf("step %d cell %d: fires %v with uniform %v", step, i, got[i], u[i])
			}
		}
	}
}
