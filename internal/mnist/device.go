package mnist

import (
	"errors"
	"fmt"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/nn"
)

// Device is where a model trains. Train, Accuracy and Trajectory build each
// batch on the CPU, move it with Input, and read results back with Host, so
// the same code runs on every device.
type Device interface {
	// Name is the -device name ("cpu", "gpu").
	Name() string
	// Place returns m with its parameters on the device: m itself, moved in
	// place, or a copy. Build the optimiser on the placed model.
	Place(m nn.Module) (nn.Module, error)
	// Input returns the CPU tensor x on the device.
	Input(x *autograd.Tensor) *autograd.Tensor
	// Host returns t's values on the CPU (reading a device's results back
	// is explicit).
	Host(t *autograd.Tensor) *autograd.Tensor
}

// CPU is the device every tensor starts on: placing and moving are no-ops.
type CPU struct{}

// Name returns "cpu".
func (CPU) Name() string { return "cpu" }

// Place returns m.
func (CPU) Place(m nn.Module) (nn.Module, error) { return m, nil }

// Input returns x.
func (CPU) Input(x *autograd.Tensor) *autograd.Tensor { return x }

// Host returns t.
func (CPU) Host(t *autograd.Tensor) *autograd.Tensor { return t }

// ErrGPUNotBuilt is what -device gpu gives until autograd has a GPU device
// (gpu.go is where it plugs in).
var ErrGPUNotBuilt = errors.New("the autograd GPU device is not built yet; use -device cpu")

// Devices lists the device names NewDevice knows.
var Devices = []string{"cpu", "gpu"}

// NewDevice returns the device called name: "cpu", or "gpu" (the first
// WebGPU adapter). Close it when done.
func NewDevice(name string) (Device, func(), error) {
	switch name {
	case "cpu":
		return CPU{}, func() {}, nil
	case "gpu":
		return openGPU()
	}
	return nil, nil, fmt.Errorf("mnist: unknown device %q (want cpu or gpu)", name)
}
