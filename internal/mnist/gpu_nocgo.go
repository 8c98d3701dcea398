//go:build !cgo && !js

package mnist

// openGPU, in a build without cgo (which the GPU package, WebGPU through
// wgpu-native, needs), says that the GPU is not built in.
func openGPU() (Device, func(), error) { return nil, nil, ErrGPUNotBuilt }
