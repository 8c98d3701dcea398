package gputrain

import (
	"errors"
	"fmt"
	"io"

	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/gpu"
)

// Devices lists the values SelectEngine accepts, for flag help.
const Devices = "cpu|gpu|gpu-recorded|auto"

// SelectEngine returns the training engine that a -device flag names, and
// a description of what it chose for logs and run records:
//
//   - "cpu": bptt's CPU engine;
//   - "gpu": this package's engine (the captured autograd step) on the best
//     adapter, an error if there is none;
//   - "gpu-recorded": package gpu's recorded CA engine (gpu.SelectEngine's
//     "gpu"), kept for comparison;
//   - "auto": this package's engine on a hardware GPU, else the CPU engine
//     (a software adapter such as lavapipe is far slower than the CPU).
//
// Its engine owns the device it opens and closes it with the engine.
func SelectEngine(device string, setup bptt.Setup, log io.Writer) (bptt.Engine, string, error) {
	switch device {
	case "cpu":
		e, err := bptt.NewCPU(setup)
		return e, "cpu", err
	case "gpu-recorded":
		e, desc, err := gpu.SelectEngine("gpu", setup, log)
		return e, desc + " (recorded engine)", err
	case "gpu", "auto":
	default:
		return nil, "", fmt.Errorf("-device %q: unknown device (use %s)", device, Devices)
	}
	dev, err := gpu.OpenAutograd()
	if err != nil {
		if device == "auto" && errors.Is(err, gpu.ErrNoAdapter) {
			return cpuInstead(setup, log, "no GPU adapter")
		}
		return nil, "", err
	}
	if device == "auto" && dev.Device().IsSoftware() {
		name := dev.Device().String()
		dev.Close()
		return cpuInstead(setup, log, "only a software adapter ("+name+")")
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
	return e, "gpu: " + dev.Device().String(), nil
}

func cpuInstead(setup bptt.Setup, log io.Writer, why string) (bptt.Engine, string, error) {
	if log != nil {
		fmt.Fprintf(log, "gpu: -device auto: %s, training on the CPU\n", why)
	}
	e, err := bptt.NewCPU(setup)
	return e, "cpu", err
}
