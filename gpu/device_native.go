//go:build !js

package gpu

import (
	"fmt"
	"sort"

	"github.com/cogentcore/webgpu/wgpu"
)

// The parts of the device that differ on wgpu-native (here) and the
// browser's WebGPU (device_js.go), whose cogentcore/webgpu backend lacks
// some calls and labels.

func init() {
	// wgpu-native logs to stderr (warnings about the missing window system
	// that a headless device never needs, and every error, which the calls
	// return to us anyway).
	wgpu.SetLogLevel(wgpu.LogLevelOff)
}

// browserState is empty on wgpu-native.
type browserState struct{}

func open() (*Device, error) {
	// NOTE: webgpu v0.23.0 leaves fields of the instance extras it mallocs
	// uninitialised when given a descriptor (wgpu-native then panics now and
	// then on a garbage GLES version), so the instance gets none and the
	// backends are chosen when enumerating.
	instance := wgpu.CreateInstance(nil)
	adapters := instance.EnumerateAdapters(&wgpu.InstanceEnumerateAdapterOptons{Backends: wgpu.InstanceBackendPrimary})
	if len(adapters) == 0 {
		instance.Release()
		return nil, ErrNoAdapter
	}
	sort.SliceStable(adapters, func(i, j int) bool {
		return adapterRank(adapters[i].GetInfo().AdapterType) < adapterRank(adapters[j].GetInfo().AdapterType)
	})
	for _, a := range adapters[1:] {
		a.Release()
	}
	adapter := adapters[0]
	info := adapter.GetInfo()
	limits := adapter.GetLimits().Limits
	// NOTE: webgpu v0.23.0 reads MaxPushConstantSize from an uninitialised
	// malloc'd struct, so it holds garbage that makes RequestDevice fail
	// now and then. No kernel uses push constants: ask for none.
	limits.MaxPushConstantSize = 0
	dev, err := adapter.RequestDevice(&wgpu.DeviceDescriptor{
		Label:          "dlca",
		RequiredLimits: &wgpu.RequiredLimits{Limits: limits},
	})
	if err != nil {
		adapter.Release()
		instance.Release()
		return nil, fmt.Errorf("gpu: adapter %s refused a device with its own limits: %v", describe(info), err)
	}
	d := &Device{
		Info:      info,
		Limits:    dev.GetLimits().Limits,
		instance:  instance,
		adapter:   adapter,
		dev:       dev,
		queue:     dev.GetQueue(),
		pipelines: map[string]*wgpu.ComputePipeline{},
		layouts:   map[string]*wgpu.BindGroupLayout{},
	}
	if d.table, err = d.uploadTable(); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// computePipelineDescriptor describes the pipeline of kernel name, labelled
// with its file name so that compiler errors point at it.
func computePipelineDescriptor(name string, layout *wgpu.PipelineLayout, module *wgpu.ShaderModule) *wgpu.ComputePipelineDescriptor {
	return &wgpu.ComputePipelineDescriptor{
		Label:   name,
		Layout:  layout,
		Compute: wgpu.ProgrammableStageDescriptor{Module: module, EntryPoint: "main"},
	}
}

// endComputePass ends pass.
func endComputePass(pass *wgpu.ComputePassEncoder) error { return pass.End() }

// clearByKernel says whether Device.submit clears buffers with a kernel
// (autograd/clear.wgsl) rather than the encoder's ClearBuffer.
const clearByKernel = false

// clearBuffer records zeroing all of b into enc.
func clearBuffer(enc *wgpu.CommandEncoder, b *wgpu.Buffer) error {
	return enc.ClearBuffer(b, 0, wgpu.WholeSize)
}

// destroy frees b's device memory (wgpu-native keeps it until the work
// submitted before that reads it is done).
func destroy(b *wgpu.Buffer) { b.Release() }

// asyncError returns nil: wgpu-native reports errors from the calls that
// make them, and a lost device through the failed map (Read).
func (d *Device) asyncError() error { return nil }

// writeBuffer writes data into b from its start; the write reaches b
// before the next submission.
func (d *Device) writeBuffer(b *wgpu.Buffer, data []byte) error {
	return d.queue.WriteBuffer(b, 0, data)
}

// mapRead maps the first size bytes of staging for reading, waiting for
// the work submitted before, and returns the map's status.
func (d *Device) mapRead(staging *wgpu.Buffer, size uint64) (wgpu.BufferMapAsyncStatus, error) {
	status := wgpu.BufferMapAsyncStatusUnknown
	if err := staging.MapAsync(wgpu.MapModeRead, 0, size, func(s wgpu.BufferMapAsyncStatus) { status = s }); err != nil {
		return status, err
	}
	d.dev.Poll(true, nil)
	return status, nil
}
