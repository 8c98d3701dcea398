//go:build !cgo

package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/dlca/dlca/bptt"
)

// devices lists the values of dlca train -device.
const devices = "cpu|gpu|gpu-autograd|auto"

// errNoGPU is -device gpu's error in a dlca built without cgo.
var errNoGPU = errors.New("-device gpu: this dlca was built without cgo: the GPU is not built in; rebuild with CGO_ENABLED=1 (and a C compiler), or train with -device cpu")

// selectEngine returns the training engine -device names in a dlca built
// without cgo, which the GPU package (WebGPU through wgpu-native) needs:
// the CPU engine for cpu and auto (auto finds no GPU here), an error for
// gpu.
func selectEngine(device string, setup bptt.Setup, _ io.Writer) (bptt.Engine, string, error) {
	switch device {
	case "cpu", "auto":
		e, err := bptt.NewCPU(setup)
		return e, "cpu", err
	case "gpu", "gpu-autograd":
		return nil, "", errNoGPU
	}
	return nil, "", fmt.Errorf("-device %q: unknown device (use %s)", device, devices)
}
