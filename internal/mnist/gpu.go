//go:build cgo || js

package mnist

import (
	"fmt"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/nn"
	"github.com/dlca/dlca/gpu"
)

// gpuDevice trains on autograd's GPU device (gpu.AutogradDevice): the
// model's parameters, the batches and everything computed from them live
// there, and only what Host reads comes back.
type gpuDevice struct{ dev *gpu.AutogradDevice }

// openGPU opens the best WebGPU adapter as an autograd device (in a browser
// build, the browser's: the MNIST page, cmd/mnist/internal/pagewasm); no
// adapter is gpu.ErrNoAdapter. The close function releases it.
func openGPU() (Device, func(), error) {
	dev, err := gpu.OpenAutograd()
	if err != nil {
		return nil, nil, fmt.Errorf("-device gpu: %w", err)
	}
	return gpuDevice{dev}, dev.Close, nil
}

// Name returns "gpu".
func (gpuDevice) Name() string { return "gpu" }

// String names the adapter too, so a run on a software adapter (lavapipe)
// says so in its first line.
func (g gpuDevice) String() string { return g.dev.String() }

// Place moves m's parameters and buffers to the GPU, in place (nn.To).
func (g gpuDevice) Place(m nn.Module) (nn.Module, error) {
	return m, nn.To(m, g.dev)
}

// Input returns x on the GPU.
func (g gpuDevice) Input(x *autograd.Tensor) (*autograd.Tensor, error) { return x.To(g.dev) }

// Host reads t back to the CPU, or returns the device's error.
func (gpuDevice) Host(t *autograd.Tensor) (*autograd.Tensor, error) { return t.To(autograd.CPU) }
