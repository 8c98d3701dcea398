package mnist

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/nn"
)

// cpu64 is a device for comparisons: the CPU in float64, a model placed
// there is cast (exactly) from float32.
type cpu64 struct{}

func (cpu64) String() string { return "cpu float64" }

func (cpu64) Place(m nn.Module) (nn.Module, error) {
	return castParameters(m, func(p *autograd.Tensor) (*autograd.Tensor, error) { return autograd.Cast(p, autograd.Float64), nil })
}

func (cpu64) Input(x *autograd.Tensor) (*autograd.Tensor, error) {
	return autograd.Cast(x, autograd.Float64), nil
}

func (cpu64) Host(t *autograd.Tensor) (*autograd.Tensor, error) { return t, nil }

// TestCastParameters: a placed model's parameters are the moved ones, leaves
// that require a gradient, and a layer castParameters does not know is
// refused.
func TestCastParameters(t *testing.T) {
	for _, kind := range Models {
		m := placed(t, kind, 1, cpu64{})
		for i, p := range m.Parameters() {
			if p.DType() != autograd.Float64 || !p.RequiresGrad() {
				t.Fatalf("%s parameter %d: %v, requires grad %v", kind, i, p.DType(), p.RequiresGrad())
			}
		}
	}
	emb := nn.NewEmbedding(3, 2, autograd.Float32, rand.New(rand.NewPCG(1, 1)))
	if _, err := (cpu64{}).Place(emb); err == nil {
		t.Fatal("an Embedding's parameters were moved silently")
	}
}

// gpuOrSkip opens the GPU device, or skips t: in a build without cgo, and
// where there is no adapter unless DLCA_REQUIRE_GPU=1 (gpu.RequireEnv), which
// CI sets so that its GPU runs cannot pass by skipping.
func gpuOrSkip(t *testing.T) Device {
	t.Helper()
	dev, closeDev, err := NewDevice("gpu")
	switch {
	case errors.Is(err, ErrGPUNotBuilt):
		t.Skip(err)
	case err != nil && os.Getenv("DLCA_REQUIRE_GPU") == "1":
		t.Fatal(err)
	case err != nil:
		t.Skip(err)
	}
	t.Cleanup(closeDev)
	return dev
}

// placed builds the model kind, float32 from seed, and places it on dev:
// every device starts from the same weights.
func placed(t *testing.T, kind string, seed uint64, dev Device) nn.Module {
	t.Helper()
	m, err := NewModel(kind, autograd.Float32, rand.New(rand.NewPCG(seed, 0)))
	if err != nil {
		t.Fatal(err)
	}
	if m, err = dev.Place(m); err != nil {
		t.Fatal(err)
	}
	return m
}

// checkTrajectories trains each model kind for 50 Adam steps on the first
// MNIST training examples from the same initial weights on both runs and
// requires the losses to agree within 1e-4 relative at every step (issue
// #13's parity for a device). The body knows nothing of the devices.
func checkTrajectories(t *testing.T, a, b Device) {
	const steps, batch, lr, tol = 50, 32, 1e-3, 1e-4
	train, _ := loadMNIST(t)
	data := train.Head(steps * batch)
	for _, kind := range Models {
		la, err := Trajectory(placed(t, kind, 7, a), a, data, batch, steps, lr)
		if err != nil {
			t.Fatal(err)
		}
		lb, err := Trajectory(placed(t, kind, 7, b), b, data, batch, steps, lr)
		if err != nil {
			t.Fatal(err)
		}
		worst := 0.0
		for i := range la {
			rel := math.Abs(la[i]-lb[i]) / math.Abs(lb[i])
			if !(rel <= tol) {
				t.Fatalf("%s, step %d: loss %.8g on %v, %.8g on %v (relative difference %.2g, want at most %g)", kind, i, la[i], a, lb[i], b, rel, tol)
			}
			worst = max(worst, rel)
		}
		if !(la[steps-1] < 0.7*la[0]) {
			t.Fatalf("%s on %s: loss %.4g at the first step and %.4g at the last: it did not train", kind, a, la[0], la[steps-1])
		}
		t.Logf("%s: loss %.4f -> %.4f; worst relative difference %.2g", kind, la[0], la[steps-1], worst)
	}
}

// TestTrajectoryParity compares the CPU in float32 with the CPU in float64
// (rounding alone) and, where there is one, with the GPU.
func TestTrajectoryParity(t *testing.T) {
	t.Run("cpu-float64", func(t *testing.T) { checkTrajectories(t, On(autograd.CPU), cpu64{}) })
	t.Run("gpu", func(t *testing.T) { checkTrajectories(t, On(autograd.CPU), gpuOrSkip(t)) })
}

// TestSubsetDevicesAgree trains both models briefly (64 steps) on an MNIST
// subset on the CPU and requires them to learn the digits (at least 70% of
// the test subset; chance is 10%), then trains the same on
// the GPU, where there is one, and requires the two to agree on the test
// subset's labels and accuracy.
func TestSubsetDevicesAgree(t *testing.T) {
	train, test := loadMNIST(t)
	train, test = train.Head(2000), test.Head(1000)
	cfg := Config{Epochs: 2, Batch: 64, LR: 2e-3, Seed: 3}
	fit := func(t *testing.T, dev Device, kind string) []int {
		m := placed(t, kind, 9, dev)
		c := cfg
		c.Device = dev
		if err := Train(m, train, c, nil); err != nil {
			t.Fatal(err)
		}
		pred, err := Predict(m, dev, test)
		if err != nil {
			t.Fatal(err)
		}
		return pred
	}
	accuracy := func(pred []int) float64 {
		right := 0
		for i, p := range pred {
			if p == test.Labels[i] {
				right++
			}
		}
		return float64(right) / float64(len(pred))
	}
	cpu := map[string][]int{}
	for _, kind := range Models {
		cpu[kind] = fit(t, On(autograd.CPU), kind)
		acc := accuracy(cpu[kind])
		if acc < 0.7 {
			t.Fatalf("%s on the CPU: test subset accuracy %.3f, want at least 0.7", kind, acc)
		}
		t.Logf("%s on the CPU: test subset accuracy %.3f", kind, acc)
	}
	t.Run("gpu", func(t *testing.T) {
		dev := gpuOrSkip(t)
		for _, kind := range Models {
			gpu := fit(t, dev, kind)
			differ := 0
			for i := range gpu {
				if gpu[i] != cpu[kind][i] {
					differ++
				}
			}
			ca, ga := accuracy(cpu[kind]), accuracy(gpu)
			if differ > len(gpu)/100 || math.Abs(ca-ga) > 0.005 {
				t.Fatalf("%s: CPU and GPU label %d of %d test digits differently; accuracy %.3f on the CPU, %.3f on the GPU", kind, differ, len(gpu), ca, ga)
			}
			t.Logf("%s on the GPU: test subset accuracy %.3f; %d of %d digits labelled otherwise than on the CPU", kind, ga, differ, len(gpu))
		}
	})
}

// castParameters replaces every parameter p of m, in place, by move(p) made
// a leaf that requires a gradient, and returns m: how cpu64 puts a model in
// float64 (devices move models with nn.To; nothing in autograd casts a
// module's dtype). It knows the layers this package's models are built of
// (Sequential, Linear, Conv2d and layers without parameters) and refuses
// others.
func castParameters(m nn.Module, move func(*autograd.Tensor) (*autograd.Tensor, error)) (nn.Module, error) {
	moveEach := func(ps ...**autograd.Tensor) error {
		for _, p := range ps {
			if *p == nil {
				continue // a layer without bias
			}
			moved, err := move(*p)
			if err != nil {
				return err
			}
			*p = moved.Detach().SetRequiresGrad(true)
		}
		return nil
	}
	var err error
	switch l := m.(type) {
	case *nn.Sequential:
		for _, layer := range l.Layers {
			if _, err = castParameters(layer, move); err != nil {
				break
			}
		}
	case *nn.Linear:
		err = moveEach(&l.Weight, &l.Bias)
	case *nn.Conv2d:
		err = moveEach(&l.Weight, &l.Bias)
	default:
		if len(m.Parameters()) > 0 {
			err = fmt.Errorf("mnist: cannot move the parameters of a %T", m)
		}
	}
	return m, err
}
