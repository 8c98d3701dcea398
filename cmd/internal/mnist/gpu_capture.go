//go:build cgo || js

package mnist

import (
	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/nn"
	"github.com/dlca/dlca/autograd/optim"
	"github.com/dlca/dlca/gpu"
)

// captureStep returns the training step captured on the GPU (gpu.Capture):
// recorded once per batch shape, then replayed with each batch's images
// and one-hot labels as its inputs, the loss read back only when asked.
func (g gpuDevice) captureStep(m nn.Module, opt optim.Optimizer) stepper {
	return gpuStepper{gpu.Capture(g.dev, func(in []*autograd.Tensor) ([]*autograd.Tensor, error) {
		loss := capturedLoss(m, in[0], in[1])
		return []*autograd.Tensor{loss}, takeStep(m, opt, loss)
	})}
}

type gpuStepper struct{ s *gpu.Step }

func (g gpuStepper) step(s *Set, indices []int, read bool) (float64, error) {
	x, y := s.Input(indices)
	out, err := g.s.Run(x, oneHot(y))
	if err != nil || !read {
		return 0, err
	}
	loss, err := out[0].To(autograd.CPU)
	if err != nil {
		return 0, err
	}
	return loss.Item(), nil
}

func (g gpuStepper) release() { g.s.Release() }
