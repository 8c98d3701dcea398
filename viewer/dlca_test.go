package viewer_test

import (
	"context"
	"errors"
	"image"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/viewer"
	"github.com/dlca/dlca/viewer/internal/toy"
)

// tinyModel returns a 2-channel model with random logits, so that its soft
// and hard rules both do something.
func tinyModel(t *testing.T) *dlca.Model {
	t.Helper()
	return toy.Model(9)
}

func TestModelSimMatchesDlcaRollouts(t *testing.T) {
	m := tinyModel(t)
	cases := []struct {
		name string
		mode viewer.Mode
		// want runs the independent rollout from init for steps steps.
		want func(init *autograd.Tensor, steps int) []float32
	}{
		{"soft sync", viewer.Mode{}, func(init *autograd.Tensor, n int) []float32 {
			return m.Rollout(init.NoGrad(), n, dlca.RolloutOptions{}).Data32()
		}},
		{"soft async", viewer.Mode{Async: true}, func(init *autograd.Tensor, n int) []float32 {
			return m.Rollout(init.NoGrad(), n, dlca.RolloutOptions{Async: true, Seed: 3}).Data32()
		}},
		{"hard sync", viewer.Mode{Hard: true}, func(init *autograd.Tensor, n int) []float32 {
			return m.Circuit().Rollout(dlca.BitsOf(init), n, dlca.HardOptions{}).Tensor(autograd.Float32).Data32()
		}},
		{"hard async", viewer.Mode{Hard: true, Async: true}, func(init *autograd.Tensor, n int) []float32 {
			return m.Circuit().Rollout(dlca.BitsOf(init), n, dlca.HardOptions{Async: true, Seed: 3}).Tensor(autograd.Float32).Data32()
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sim := viewer.NewModelSim(m, 7, 9, nil, 3) // not the training grid size
			sim.SetMode(c.mode)
			sim.Reset()
			init := sim.Frame().Clone()
			for i := 0; i < 4; i++ {
				sim.Step()
			}
			want := c.want(autograd.New(init.Cells, 1, 7, 9, 2), 4)
			got := sim.Frame().Cells
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("value %d after 4 steps = %v, want %v", i, got[i], want[i])
				}
			}
			if sameCells(init.Cells, got) {
				t.Error("the state did not change in 4 steps: a useless test model")
			}
		})
	}
}

func TestModelSimResetAndWipe(t *testing.T) {
	sim := viewer.NewModelSim(tinyModel(t), 5, 4, func(rng *rand.Rand, h, w, c int) []float32 {
		s := make([]float32, h*w*c)
		for i := range s {
			s[i] = 1
		}
		return s
	}, 1)
	sim.Reset()
	sim.Wipe(image.Rect(2, 1, 9, 3)) // reaches past the right edge
	f := sim.Frame()
	for y := 0; y < 5; y++ {
		for x := 0; x < 4; x++ {
			want := float32(1)
			if x >= 2 && y >= 1 && y < 3 {
				want = 0
			}
			for c := 0; c < 2; c++ {
				if got := f.At(y, x, c); got != want {
					t.Errorf("cell (%d,%d) channel %d = %v, want %v", x, y, c, got, want)
				}
			}
		}
	}
}

func TestTrainingShowsProgressAndSavesOnQuit(t *testing.T) {
	m := tinyModel(t)
	setup := bptt.Setup{Model: m, Batch: 1, Steps: 3, LossChannels: []int{0}, Optimizer: bptt.PaperOptimizer(0.05)}
	eng, err := bptt.NewCPU(setup)
	if err != nil {
		t.Fatal(err)
	}
	saved := make(chan *dlca.Model, 1)
	tr := &viewer.Training{
		Engine: eng, Setup: setup,
		Run: bptt.Run{Iterations: 1_000_000, Seed: 1, Source: func(rng *rand.Rand) *bptt.Batch {
			return &bptt.Batch{Height: 6, Width: 6, Init: viewer.RandomInit(rng, 6, 6, 2), Target: make([]float32, 36)}
		}},
		Sim: func(m *dlca.Model) viewer.Simulator { return viewer.NewModelSim(m, 6, 6, nil, 1) },
		Finish: func(m *dlca.Model, err error) error {
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Finish got %v, want context.Canceled", err)
			}
			saved <- m
			return nil
		},
	}
	a := viewer.NewLive(context.Background(), tr, viewer.Options{RolloutSteps: 3, Speed: 60})
	a.Layout(640, 400)
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if err := a.Update(viewer.Tick{}); err != nil {
			t.Fatal(err)
		}
		a.Render()
		if p, _, _ := a.Training(); p.Iter >= 3 && a.Frame().H == 6 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	p, err, _ := a.Training()
	if p.Iter < 3 || err != nil {
		t.Fatalf("after 20 s: iteration %d, error %v", p.Iter, err)
	}
	if p.Iters != 1_000_000 || p.ActiveGates <= 0 {
		t.Errorf("progress %+v", p)
	}
	a.Quit()
	for err == nil && time.Now().Before(deadline.Add(10*time.Second)) {
		err = a.Update(viewer.Tick{})
	}
	if err != viewer.ErrQuit {
		t.Fatalf("Update after Quit: %v", err)
	}
	select {
	case got := <-saved:
		if got == nil || got.Config.String() != m.Config.String() {
			t.Errorf("saved %v", got)
		}
	default:
		t.Error("quitting did not save the model")
	}
	if _, err, _ := a.Training(); err != nil {
		t.Errorf("training error after a clean stop: %v", err)
	}
}

// The viewer steps soft models while training records its own rollouts in
// another goroutine; neither may switch the other's recording off.
func TestLiveSoftSteppingLeavesTrainingIntact(t *testing.T) {
	m := tinyModel(t)
	setup := bptt.Setup{Model: m, Batch: 1, Steps: 3, LossChannels: []int{0}, Optimizer: bptt.PaperOptimizer(0.05)}
	eng, err := bptt.NewCPU(setup)
	if err != nil {
		t.Fatal(err)
	}
	tr := &viewer.Training{
		Engine: eng, Setup: setup,
		Run: bptt.Run{Iterations: 60, Seed: 1, Source: func(rng *rand.Rand) *bptt.Batch {
			return &bptt.Batch{Height: 6, Width: 6, Init: viewer.RandomInit(rng, 6, 6, 2), Target: make([]float32, 36)}
		}},
		Sim: func(m *dlca.Model) viewer.Simulator { return viewer.NewModelSim(m, 16, 16, nil, 1) },
	}
	a := viewer.NewLive(context.Background(), tr, viewer.Options{RolloutSteps: 3, Speed: 120})
	a.Layout(640, 400)
	deadline := time.Now().Add(30 * time.Second)
	steps := 0
	for time.Now().Before(deadline) {
		if p, err, _ := a.Training(); err != nil || p.Iter == 60 {
			break
		}
		if err := a.Update(viewer.Tick{}); err != nil {
			t.Fatal(err)
		}
		steps += a.Steps()
	}
	a.Wait()
	a.Update(viewer.Tick{})
	if p, err, _ := a.Training(); err != nil || p.Iter != 60 {
		t.Fatalf("training ended at iteration %d with %v", p.Iter, err)
	}
	if steps == 0 {
		t.Error("the viewer never stepped while training ran")
	}
}

func sameCells(a, b []float32) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

var _ viewer.Simulator = (*viewer.ModelSim)(nil)
