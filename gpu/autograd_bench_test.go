package gpu

import (
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/optim"
)

// BenchmarkAutogradMLPStep times one Adam step (forward, backward, update,
// Sync) of the broadcasting MLP of the memory test, batch 256, 64 inputs,
// 128 hidden units, on each device. On a software adapter (lavapipe) the
// GPU figure says nothing about a GPU.
func BenchmarkAutogradMLPStep(b *testing.B) {
	for _, name := range []string{"cpu", "gpu"} {
		b.Run(name, func(b *testing.B) {
			var dev autograd.Device = autograd.CPU
			if name == "gpu" {
				dev = testAutograd(b)
			}
			m := newMLP(b, dev, 64, 128, 10)
			x, err := randTensor(1, -1, 1, 256, 64).To(dev)
			if err != nil {
				b.Fatal(err)
			}
			y, err := randTensor(2, -1, 1, 256, 10).To(dev)
			if err != nil {
				b.Fatal(err)
			}
			o := optim.NewAdam(m.params(), optim.DefaultAdam())
			for b.Loop() {
				o.ZeroGrad()
				loss := autograd.Mean(autograd.Square(autograd.Sub(m.forward(x), y)), false)
				if err := loss.Backward(); err != nil {
					b.Fatal(err)
				}
				if err := o.Step(); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := m.w1.To(autograd.CPU); err != nil { // waits for the last step
				b.Fatal(err)
			}
		})
	}
}
