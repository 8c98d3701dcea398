//go:build !cgo && !js

package mnist

// openGPU, in a native build without cgo (which the GPU package, WebGPU
// through wgpu-native, needs there), says that the GPU is not built in. A
// browser build (GOOS=js) has the GPU, on the browser's WebGPU (gpu.go).
func openGPU() (Device, func(), error) { return nil, nil, ErrGPUNotBuilt }
