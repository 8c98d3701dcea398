package autograd_test

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/nn"
	"github.com/dlca/dlca/autograd/optim"
)

// mlpStep returns one Adam training step of a 784-128-10 perceptron on a
// fixed random batch of 128 (MNIST's MLP), and its parameters.
func mlpStep(t *testing.T) func() float64 {
	rng := rand.New(rand.NewPCG(3, 3))
	m := nn.NewSequential(
		nn.NewLinear(784, 128, true, autograd.Float32, rng),
		nn.ReLU,
		nn.NewLinear(128, 10, true, autograd.Float32, rng),
	)
	x := autograd.Zeros(autograd.Float32, 128, 784)
	for i := range x.Data32() {
		x.Data32()[i] = float32(rng.Float64())
	}
	labels := make([]int, 128)
	for i := range labels {
		labels[i] = rng.IntN(10)
	}
	opt := optim.NewAdam(m.Parameters(), optim.DefaultAdam())
	return func() float64 {
		opt.ZeroGrad()
		loss := nn.CrossEntropyLoss(m.Forward(x), labels, nn.ReduceMean)
		if err := loss.Backward(); err != nil {
			t.Fatal(err)
		}
		if err := opt.Step(); err != nil {
			t.Fatal(err)
		}
		return loss.At(0)
	}
}

// TestTrainingLoopAllocatesLittle: after 50 warm-up steps, 300 MLP
// training steps (784-128-10, batch 128, Adam) allocate under 128 KiB a
// step, where its arrays add up to 1.3 MB (activations, their gradients,
// the 128x784 weight's gradient, Adam's temporaries): every array over
// 32 KiB comes back through the storage pool, so a single 128x128
// activation (64 KiB) or weight gradient (392 KiB) allocated afresh each
// step would show. What is still allocated, about 87 KiB, is the graph
// itself (tensor headers, shapes, nodes, closures, the topological order,
// about 32 KiB) and the small arrays the pool leaves to the runtime
// (logits, biases, the loss and its softmax's temporaries).
func TestTrainingLoopAllocatesLittle(t *testing.T) {
	if testing.Short() {
		t.Skip("350 training steps")
	}
	if runtime.GOARCH == "wasm" {
		t.Skip("350 training steps take a minute in WebAssembly; the pool is the same code there")
	}
	step := mlpStep(t)
	for range 50 {
		step()
	}
	const steps, bound = 300, 128 << 10
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range steps {
		step()
	}
	runtime.ReadMemStats(&after)
	perStep := (after.TotalAlloc - before.TotalAlloc) / steps
	t.Logf("%d bytes allocated a step, %d collections in %d steps", perStep, after.NumGC-before.NumGC, steps)
	if perStep > bound {
		t.Fatalf("an MLP training step allocates %d bytes after warm-up, want under %d", perStep, bound)
	}
}
