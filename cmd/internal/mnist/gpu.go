//go:build cgo || js

package mnist

import (
	"fmt"

	"github.com/dlca/dlca/gpu"
)

// gpuDevice trains on autograd's GPU device (gpu.AutogradDevice): the
// model's parameters, the batches and everything computed from them live
// there, and only what Host reads comes back. Beyond On's device it
// captures the training step (gpu_capture.go).
type gpuDevice struct {
	onDevice
	dev *gpu.AutogradDevice
}

// openGPU opens the best WebGPU adapter as an autograd device (in a browser
// build, the browser's: the MNIST page, cmd/mnist/internal/pagewasm); no
// adapter is gpu.ErrNoAdapter. The close function releases it. Its String names
// the adapter, so a run on a software adapter (lavapipe) says so in its
// first line.
func openGPU() (Device, func(), error) {
	dev, err := gpu.OpenAutograd()
	if err != nil {
		return nil, nil, fmt.Errorf("-device gpu: %w", err)
	}
	return gpuDevice{onDevice{dev}, dev}, dev.Close, nil
}
