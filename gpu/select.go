package gpu

import (
	"errors"
	"fmt"
	"io"

	"github.com/dlca/dlca/bptt"
)

// Devices lists the values SelectEngine accepts, for flag help.
const Devices = "cpu|gpu|auto"

// SelectEngine returns the training engine that a -device flag names, and
// a description of what it chose for logs and run records:
//
//   - "cpu": bptt's CPU engine;
//   - "gpu": the GPU engine on the best adapter (an error if there is none);
//   - "auto": the GPU engine on a hardware GPU, else the CPU engine (a
//     software adapter such as lavapipe is slower than the CPU engine).
//
// The GPU engine reports its device and memory budget to log (nil: quiet).
func SelectEngine(device string, setup bptt.Setup, log io.Writer) (bptt.Engine, string, error) {
	switch device {
	case "cpu":
		e, err := bptt.NewCPU(setup)
		return e, "cpu", err
	case "gpu", "auto":
	default:
		return nil, "", fmt.Errorf("-device %q: unknown device (use %s)", device, Devices)
	}
	d, err := Open()
	if err != nil {
		if device == "auto" && errors.Is(err, ErrNoAdapter) {
			return cpuInstead(setup, log, "no GPU adapter")
		}
		return nil, "", err
	}
	if device == "auto" && d.IsSoftware() {
		name := describe(d.Info)
		d.Close()
		return cpuInstead(setup, log, "only a software adapter ("+name+")")
	}
	e, err := NewEngine(setup, Options{Device: d, Log: log})
	if err != nil {
		d.Close()
		return nil, "", err
	}
	e.ownDevice = true
	return e, "gpu: " + describe(d.Info), nil
}

func cpuInstead(setup bptt.Setup, log io.Writer, why string) (bptt.Engine, string, error) {
	if log != nil {
		fmt.Fprintf(log, "gpu: -device auto: %s, training on the CPU\n", why)
	}
	e, err := bptt.NewCPU(setup)
	return e, "cpu", err
}
