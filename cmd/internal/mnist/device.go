package mnist

import (
	"errors"
	"fmt"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/nn"
)

// Device is where a model trains. Train, Predict, Accuracy and Trajectory
// build each batch on the CPU, move it with Input, and read results back with Host, so
// the same code runs on every device. On makes one of an autograd device;
// the tests add others (the CPU in float64).
type Device interface {
	// String names the device in messages ("cpu", the GPU's adapter).
	String() string
	// Place returns m with its parameters on the device: m itself, moved in
	// place, or a copy. Build the optimiser on the placed model.
	Place(m nn.Module) (nn.Module, error)
	// Input returns the CPU tensor x on the device (autograd's To).
	Input(x *autograd.Tensor) (*autograd.Tensor, error)
	// Host returns t on the CPU: reading a device's results back is
	// explicit, and reports the device's error if it failed.
	Host(t *autograd.Tensor) (*autograd.Tensor, error)
}

// On returns the Device that trains on dev, an autograd device: On(autograd.CPU)
// trains where every tensor starts, so placing and moving change nothing.
func On(dev autograd.Device) Device { return onDevice{dev} }

// onDevice trains on an autograd device: the model moves there with nn.To,
// each batch with To, and results come back to autograd.CPU.
type onDevice struct{ dev autograd.Device }

// String returns the autograd device's name.
func (d onDevice) String() string { return d.dev.String() }

// Place moves m's parameters and buffers to the device, in place (nn.To).
func (d onDevice) Place(m nn.Module) (nn.Module, error) { return m, nn.To(m, d.dev) }

// Input returns x on the device.
func (d onDevice) Input(x *autograd.Tensor) (*autograd.Tensor, error) { return x.To(d.dev) }

// Host reads t back to the CPU, or returns the device's error.
func (onDevice) Host(t *autograd.Tensor) (*autograd.Tensor, error) { return t.To(autograd.CPU) }

// ErrGPUNotBuilt is -device gpu's error in a native build without cgo,
// which the GPU device (gpu.go) needs there (wgpu-native); a browser build
// (GOOS=js) has it on the browser's WebGPU.
var ErrGPUNotBuilt = errors.New("-device gpu: this build has no cgo, so the GPU is not built in; rebuild with CGO_ENABLED=1 (and a C compiler), or use -device cpu")

// NewDevice returns the device called name, "cpu" or "gpu", and the
// function that closes it when the run is done.
func NewDevice(name string) (Device, func(), error) {
	switch name {
	case "cpu":
		return On(autograd.CPU), func() {}, nil
	case "gpu":
		return openGPU()
	}
	return nil, nil, fmt.Errorf("mnist: unknown device %q (want cpu or gpu)", name)
}
