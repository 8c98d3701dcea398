package gputrain

import (
	"fmt"
	"io"

	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/gpu"
)

// Devices lists the values SelectEngine accepts, for flag help.
const Devices = "cpu|gpu|gpu-autograd|auto"

// SelectEngine returns the training engine that a -device flag names, and
// a description of what it chose for logs and run records:
//
//   - "cpu", "gpu" and "auto": gpu.SelectEngine's choice (bptt's CPU
//     engine, or package gpu's recorded CA engine: auto on a hardware GPU
//     only, else the CPU engine);
//   - "gpu-autograd": this package's engine (the captured autograd step) on
//     the best adapter, an error if there is none. It is not the default
//     yet: a checkerboard iteration takes 1,094 dispatches on a hardware
//     GPU (1,474 on a software adapter) against the recorded engine's
//     1,263, but on lavapipe, the only adapter measured, it is not reliably
//     the faster (docs/PERFORMANCE.md); it becomes "gpu" once it is.
//
// Its engine owns the device it opens and closes it with the engine.
func SelectEngine(device string, setup bptt.Setup, log io.Writer) (bptt.Engine, string, error) {
	switch device {
	case "cpu", "gpu", "auto":
		return gpu.SelectEngine(device, setup, log)
	case "gpu-autograd":
	default:
		return nil, "", fmt.Errorf("-device %q: unknown device (use %s)", device, Devices)
	}
	dev, err := gpu.OpenAutograd()
	if err != nil {
		return nil, "", err
	}
	e, err := New(dev, setup, Options{})
	if err != nil {
		dev.Close()
		return nil, "", err
	}
	e.ownDevice = true
	if log != nil {
		fmt.Fprintf(log, "gpu: training through the captured autograd step on %s\n", dev.Device())
		if dev.Device().IsSoftware() {
			fmt.Fprintln(log, "gpu: this is a software (CPU) adapter: results are correct but slow; its timings say nothing about a GPU")
		}
	}
	return e, "gpu: " + dev.Device().String() + " (captured autograd step)", nil
}
