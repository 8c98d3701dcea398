package gpu_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/dlca/dlca/autograd/optim"
	"github.com/dlca/dlca/bptt"
)

// TestEngineResumesCPUCheckpoint trains two iterations on the CPU engine,
// moves model and optimiser state to a GPU engine, and trains one more
// iteration on both: the logits agree, and the GPU's state reads back as
// the CPU's.
func TestEngineResumesCPUCheckpoint(t *testing.T) {
	s, src, _ := checkerboard(t, 4, 5, 2, 1)
	cpu, err := bptt.NewCPU(s)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 1))
	for range 2 {
		if _, err := cpu.Iterate(src(rng)); err != nil {
			t.Fatal(err)
		}
	}
	state, err := cpu.OptimizerState()
	if err != nil {
		t.Fatal(err)
	}
	resumed := s
	if resumed.Model, err = cpu.Model(); err != nil {
		t.Fatal(err)
	}
	g := newEngine(t, resumed)
	if err := g.LoadOptimizerState(state); err != nil {
		t.Fatal(err)
	}
	back, err := g.OptimizerState()
	if err != nil {
		t.Fatal(err)
	}
	if back.Steps != state.Steps || back.LR != state.LR || back.Kind != state.Kind || !slices.Equal(back.ParamSteps, state.ParamSteps) {
		t.Errorf("state read back as %s steps %d %v lr %v, loaded %s steps %d %v lr %v", back.Kind, back.Steps, back.ParamSteps, back.LR, state.Kind, state.Steps, state.ParamSteps, state.LR)
	}
	for _, name := range []string{"m", "v"} {
		for l := range state.Buffers[name] {
			for i, v := range state.Buffers[name][l] {
				if got := back.Buffers[name][l][i]; got != float64(float32(v)) {
					t.Fatalf("%s[%d][%d]: read back %v, loaded %v", name, l, i, got, v)
				}
			}
		}
	}
	b := src(rng)
	if _, err := cpu.Iterate(b); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Iterate(b); err != nil {
		t.Fatal(err)
	}
	mc, _ := cpu.Model()
	mg, err := g.Model()
	if err != nil {
		t.Fatal(err)
	}
	for li, pc := range mc.Params() {
		for i := range pc.Len() {
			if want, got := pc.At(i), mg.Params()[li].At(i); math.Abs(got-want) > 1e-4*math.Max(1, math.Abs(want)) {
				t.Fatalf("layer %d logit %d after resuming: gpu %v, cpu %v", li, i, got, want)
			}
		}
	}
}

func TestEngineRejectsForeignState(t *testing.T) {
	s, _, _ := checkerboard(t, 4, 5, 1, 0)
	g := newEngine(t, s)
	differ, err := g.OptimizerState()
	if err != nil {
		t.Fatal(err)
	}
	differ.ParamSteps[len(differ.ParamSteps)-1]++ // a layer that had one more step
	for _, c := range []struct {
		name  string
		state optim.State
		want  string
	}{
		{"sgd", optim.State{Kind: "sgd"}, "cannot load"},
		{"other model", optim.State{Kind: "adamw", Buffers: map[string][][]float64{"m": {{1}}, "v": {{1}}}}, "another model"},
		{"steps for another model", optim.State{Kind: "adamw", ParamSteps: []int{1}}, "another model"},
		{"steps that differ", differ, "resume on the CPU engine"},
		{"amsgrad", optim.State{Kind: "adamw", Buffers: map[string][][]float64{"max_v": nil}}, "AMSGrad"},
	} {
		if err := g.LoadOptimizerState(c.state); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error saying %q", c.name, err, c.want)
		}
	}
}
