package mnist

import (
	"errors"
	"fmt"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/nn"
)

// Device is where a model trains. Train, Predict, Accuracy and Trajectory
// build each batch on the CPU, move it with Input, and read results back with Host, so
// the same code runs on every device.
type Device interface {
	// Name is the -device name ("cpu", "gpu").
	Name() string
	// Place returns m with its parameters on the device: m itself, moved in
	// place, or a copy. Build the optimiser on the placed model.
	Place(m nn.Module) (nn.Module, error)
	// Input returns the CPU tensor x on the device (autograd's To).
	Input(x *autograd.Tensor) (*autograd.Tensor, error)
	// Host returns t on the CPU: reading a device's results back is
	// explicit, and reports the device's error if it failed.
	Host(t *autograd.Tensor) (*autograd.Tensor, error)
}

// CPU is the device every tensor starts on: placing and moving are no-ops.
type CPU struct{}

// Name returns "cpu".
func (CPU) Name() string { return "cpu" }

// Place returns m.
func (CPU) Place(m nn.Module) (nn.Module, error) { return m, nil }

// Input returns x.
func (CPU) Input(x *autograd.Tensor) (*autograd.Tensor, error) { return x, nil }

// Host returns t.
func (CPU) Host(t *autograd.Tensor) (*autograd.Tensor, error) { return t, nil }

// ErrGPUNotBuilt is -device gpu's error in a native build without cgo,
// which the GPU device (gpu.go) needs there (wgpu-native); a browser build
// (GOOS=js) has it on the browser's WebGPU.
var ErrGPUNotBuilt = errors.New("-device gpu: this build has no cgo, so the GPU is not built in; rebuild with CGO_ENABLED=1 (and a C compiler), or use -device cpu")

// NewDevice returns the device called name, "cpu" or "gpu", and the
// function that closes it when the run is done.
func NewDevice(name string) (Device, func(), error) {
	switch name {
	case "cpu":
		return CPU{}, func() {}, nil
	case "gpu":
		return openGPU()
	}
	return nil, nil, fmt.Errorf("mnist: unknown device %q (want cpu or gpu)", name)
}
