//go:build cgo

package main

import (
	"io"

	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/gpu"
)

// devices lists the values of dlca train -device.
const devices = gpu.Devices

// selectEngine returns the training engine -device names (gpu.SelectEngine).
// The GPU (WebGPU through wgpu-native) needs cgo: engine_nogpu.go is the
// build without it.
func selectEngine(device string, setup bptt.Setup, log io.Writer) (bptt.Engine, string, error) {
	return gpu.SelectEngine(device, setup, log)
}
