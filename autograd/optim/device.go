package optim

import (
	"fmt"

	"github.com/dlca/dlca/autograd"
)

// DeviceKernels are the optimiser kernels of a device other than the CPU
// (package gpu's AutogradDevice has them). A Step on parameters that live on
// such a device runs there, with the optimiser's state (momentum, moments)
// on the same device, created there on first use; the Step ends with the
// device's Sync and returns its error. Each kernel updates its first
// operands in place, from the constants the CPU computes in float64.
type DeviceKernels interface {
	// SGDStep applies one SGD update to p from its gradient g; momentum is
	// nil when c.Momentum is 0, and first reports that it holds nothing yet
	// (the buffer then starts as the decayed gradient).
	SGDStep(p, g, momentum *autograd.Tensor, c SGDConfig, first bool)
	// AdamStep applies one Adam or AdamW update to p, m and v (and maxV,
	// nil without AMSGrad) from g.
	AdamStep(p, g, m, v, maxV *autograd.Tensor, u AdamUpdate)
	// ClipValue clamps g to [-limit, limit] in place.
	ClipValue(g *autograd.Tensor, limit float64)
}

// kernelsOf returns the DeviceKernels of p's device, or nil for a CPU
// parameter. It panics, naming op, on a device without them.
func kernelsOf(op string, p *autograd.Tensor) DeviceKernels {
	dev := p.Device()
	if dev == autograd.CPU {
		return nil
	}
	k, ok := dev.(DeviceKernels)
	if !ok {
		panic(fmt.Sprintf("optim: %s of a parameter on %v, which has no optim.DeviceKernels (move the model to the CPU with To)", op, dev))
	}
	return k
}

// syncDevices submits the work of every device among params and returns
// the first device error.
func syncDevices(params []*autograd.Tensor) error {
	var seen []autograd.Device
	for _, p := range params {
		dev := p.Device()
		if dev == autograd.CPU || contains(seen, dev) {
			continue
		}
		seen = append(seen, dev)
		if err := dev.Sync(); err != nil {
			return err
		}
	}
	return nil
}

func contains(devs []autograd.Device, d autograd.Device) bool {
	for _, x := range devs {
		if x == d {
			return true
		}
	}
	return false
}

// Replayer is the optional interface of a device that captures steps for
// replay (package gpu's Capture). An optimiser hands it each parameter's
// device update as a function: Replayed runs the function now and, while
// the device captures a step, keeps it to run again before every replay of
// that step, so that the host's part of the update is redone (Adam's step
// count advances, the constants follow the learning rate a schedule set)
// and the kernels it calls rewrite the constants of the dispatches they
// recorded the first time instead of recording new ones.
type Replayer interface {
	Replayed(update func())
}

// replayed runs update through k's Replayer when it has one, else at once.
func replayed(k DeviceKernels, update func()) {
	if r, ok := k.(Replayer); ok {
		r.Replayed(update)
		return
	}
	update()
}
