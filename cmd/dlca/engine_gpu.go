//go:build cgo

package main

import (
	"io"

	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/gputrain"
)

// devices lists the values of dlca train -device.
const devices = gputrain.Devices

// selectEngine returns the training engine -device names
// (gputrain.SelectEngine: gpu on package gpu's recorded CA engine,
// gpu-autograd through the captured autograd step).
// The GPU (WebGPU through wgpu-native) needs cgo: engine_nogpu.go is the
// build without it.
func selectEngine(device string, setup bptt.Setup, log io.Writer) (bptt.Engine, string, error) {
	return gputrain.SelectEngine(device, setup, log)
}
