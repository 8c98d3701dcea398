package gputrain

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"sync"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/experiments"
	"github.com/dlca/dlca/gpu"
)

// shared is the one device the tests use: opening one costs about a second.
var shared struct {
	once sync.Once
	dev  *gpu.AutogradDevice
	err  error
}

// device returns the shared device, skipping t without an adapter unless
// DLCA_REQUIRE_GPU=1 (gpu.RequireEnv).
func device(t testing.TB) *gpu.AutogradDevice {
	t.Helper()
	shared.once.Do(func() { shared.dev, shared.err = gpu.OpenAutograd() })
	if shared.err != nil {
		if gpu.Required() || !errors.Is(shared.err, gpu.ErrNoAdapter) {
			t.Fatalf("no GPU device (%s=1 requires one): %v", gpu.RequireEnv, shared.err)
		}
		t.Skipf("skipping GPU test: %v (set %s=1 to make this a failure)", shared.err, gpu.RequireEnv)
	}
	return shared.dev
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.dev != nil {
		shared.dev.Close()
	}
	os.Exit(code)
}

// trained returns the experiment's setup on an h x w grid with its model
// trained iters iterations of trainSteps steps on the CPU (so that its
// rollouts do something: a fresh model's gates pass their input through),
// and the experiment's batch source.
func trained(t testing.TB, experiment string, h, w, trainSteps, iters int) (bptt.Setup, bptt.Source) {
	t.Helper()
	e, err := experiments.Get(experiment)
	if err != nil {
		t.Fatal(err)
	}
	e.Model.Height, e.Model.Width = h, w
	m, err := dlca.New(e.Model, autograd.Float32)
	if err != nil {
		t.Fatal(err)
	}
	s, src := e.Setup(m), e.Source()
	s.Workers = 1 // the machine's other cores run other tests; results are the same
	if iters > 0 {
		steps := s.Steps
		s.Steps = trainSteps
		cpu, err := bptt.NewCPU(s)
		if err != nil {
			t.Fatal(err)
		}
		if _, s.Model, err = bptt.Train(context.Background(), cpu, s, bptt.Run{Iterations: iters, Seed: 3, Source: src}); err != nil {
			t.Fatal(err)
		}
		s.Steps = steps
	}
	return s, src
}

// batch draws a batch from src with fire seed seed.
func batch(src bptt.Source, seed uint64) *bptt.Batch {
	b := src(rand.New(rand.NewPCG(seed, 1)))
	b.FireSeed = seed
	return b
}

// maxRelDiff returns the largest |a-b| over max(1, |b|) of two models'
// logits, and the layer where it is.
func maxRelDiff(a, b *dlca.Model) (float64, string) {
	worst, at := 0.0, ""
	for li, p := range a.Params() {
		q := b.Params()[li]
		for i := range p.Len() {
			if d := math.Abs(p.At(i)-q.At(i)) / math.Max(1, math.Abs(q.At(i))); d > worst || math.IsNaN(d) {
				worst, at = d, a.Layers()[li].Name
			}
		}
	}
	return worst, at
}
