//go:build js

package gpu

import (
	"errors"
	"fmt"
	"strings"
	"syscall/js"
	"unsafe"

	"github.com/cogentcore/webgpu/wgpu"

	"github.com/dlca/dlca/autograd"
)

// The browser's WebGPU (navigator.gpu) through cogentcore/webgpu's js
// backend, which has no ComputePipelineDescriptor.Label, no
// CommandEncoder.ClearBuffer, no Buffer.GetSize and no result from
// ComputePassEncoder.End, and whose Adapter.GetInfo is empty; device.go's
// wgpu-native twin is device_native.go.
//
// The browser answers asynchronously (requestAdapter, requestDevice and a
// read-back's mapAsync return promises). WebAssembly runs one goroutine at
// a time: a goroutine waiting on a promise (await here, and
// cogentcore/webgpu's own jsx.Await in MapAsync) blocks on a channel, and
// the Go runtime hands the thread back to the browser's event loop until
// the promise's callback closes it, so the page stays responsive. A call
// from JavaScript into Go (a js.FuncOf) must not wait so: it has to start
// a goroutine that does (web/trainwasm does).

// browserState holds the device's queue, and what the browser reports
// asynchronously about it: its uncaptured errors and its loss.
type browserState struct {
	queue  js.Value // the device's GPUQueue (see writeBuffer)
	events js.Value // {errors: [messages], lost: "reason: message" or ""}, kept by watchDevice
}

// noBrowserAdapter is the error of a browser that offers no WebGPU
// adapter; errors.Is matches it with ErrNoAdapter.
type noBrowserAdapter struct{ why string }

func (e noBrowserAdapter) Error() string {
	return "gpu: this browser offers no WebGPU adapter (" + e.why + "); Chrome and Edge 113 and later offer WebGPU, " +
		"Firefox 141 and later on Windows, Safari 26; headless Chromium needs --enable-unsafe-webgpu; train on the CPU instead"
}

func (e noBrowserAdapter) Is(target error) bool { return target == ErrNoAdapter }

// webgpuLimits are the limits the device asks for at the adapter's values
// (WebGPU's defaults allow only 8 storage buffers per shader stage and
// 128 MiB bindings).
var webgpuLimits = []string{
	"maxStorageBuffersPerShaderStage", "maxStorageBufferBindingSize", "maxBufferSize",
	"maxComputeWorkgroupStorageSize", "maxComputeInvocationsPerWorkgroup", "maxComputeWorkgroupSizeX",
	"maxComputeWorkgroupsPerDimension", "maxBindingsPerBindGroup", "maxUniformBufferBindingSize",
}

func open() (*Device, error) {
	nav := js.Global().Get("navigator")
	if !nav.Truthy() || !nav.Get("gpu").Truthy() {
		return nil, noBrowserAdapter{"no navigator.gpu"}
	}
	opts := js.Global().Get("Object").New()
	opts.Set("powerPreference", "high-performance")
	adapter, err := await(nav.Get("gpu").Call("requestAdapter", opts))
	if err != nil {
		return nil, noBrowserAdapter{"requestAdapter failed: " + err.Error()}
	}
	if !adapter.Truthy() {
		return nil, noBrowserAdapter{"requestAdapter returned null"}
	}
	info := adapterInfo(adapter)
	required := js.Global().Get("Object").New()
	for _, name := range webgpuLimits {
		if v := adapter.Get("limits").Get(name); v.Type() == js.TypeNumber {
			required.Set(name, v)
		}
	}
	desc := js.Global().Get("Object").New()
	desc.Set("label", "dlca")
	desc.Set("requiredLimits", required)
	jsDev, err := await(adapter.Call("requestDevice", desc))
	if err != nil || !jsDev.Truthy() {
		return nil, fmt.Errorf("gpu: adapter %s refused a device with its own limits: %v", describe(info), err)
	}
	dev := wgpu.NewDevice(jsDev)
	d := &Device{
		Info:      info,
		Limits:    dev.GetLimits().Limits,
		dev:       &dev,
		queue:     dev.GetQueue(),
		pipelines: map[string]*wgpu.ComputePipeline{},
		layouts:   map[string]*wgpu.BindGroupLayout{},
	}
	d.browser.queue = jsDev.Get("queue")
	d.watch(jsDev)
	if d.table, err = d.uploadTable(); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// adapterInfo describes a browser's adapter from its GPUAdapterInfo
// (vendor, architecture, description). A fallback adapter (a software one,
// such as Chromium's SwiftShader) counts as a CPU adapter.
func adapterInfo(adapter js.Value) wgpu.AdapterInfo {
	info := adapter.Get("info")
	str := func(key string) string {
		if !info.Truthy() {
			return ""
		}
		if v := info.Get(key); v.Type() == js.TypeString {
			return v.String()
		}
		return ""
	}
	fallback := adapter.Get("isFallbackAdapter").Truthy() || (info.Truthy() && info.Get("isFallbackAdapter").Truthy())
	name := strings.TrimSpace(str("vendor") + " " + str("architecture"))
	desc := str("description")
	if desc == "" {
		desc = "WebGPU adapter"
	}
	software := fallback || strings.Contains(strings.ToLower(name+" "+desc), "swiftshader")
	kind := wgpu.AdapterTypeUnknown
	if software {
		kind = wgpu.AdapterTypeCPU
	}
	return wgpu.AdapterInfo{
		VendorName:        str("vendor"),
		Architecture:      str("architecture"),
		Name:              name,
		DriverDescription: desc,
		AdapterType:       kind,
		BackendType:       wgpu.BackendTypeWebGPU,
	}
}

// watchDevice(device, events) records the device's uncaptured errors
// (validation, out of memory) and its loss into events, which the browser
// reports through an event and a promise rather than from the calls: Read
// returns them (asyncError). It is JavaScript, not a Go callback, because
// the browser may report the loss once the Go program has exited (a test
// binary closing its device).
var watchDevice = js.Global().Get("Function").New("device", "events", `
	device.addEventListener("uncapturederror", (e) => { events.errors.push(e.error ? e.error.message : String(e)); });
	device.lost.then((info) => { events.lost = info.reason + ": " + info.message; });
`)

// watch starts recording dev's errors and loss into d.browser.events.
func (d *Device) watch(dev js.Value) {
	d.browser.events = js.Global().Get("Object").New()
	d.browser.events.Set("errors", js.Global().Get("Array").New())
	d.browser.events.Set("lost", "")
	watchDevice.Invoke(dev, d.browser.events)
}

// lost returns the device's lost reason, "" while it lives.
func (d *Device) lost() string { return d.browser.events.Get("lost").String() }

// asyncError returns the device's loss or its first uncaptured error, if
// the browser has reported either.
func (d *Device) asyncError() error {
	if lost := d.lost(); lost != "" {
		return fmt.Errorf("the WebGPU device was lost (%s) (%w)", lost, autograd.ErrDeviceLost)
	}
	if errs := d.browser.events.Get("errors"); errs.Length() > 0 {
		return fmt.Errorf("WebGPU reported %d error(s), the first: %s", errs.Length(), errs.Index(0).String())
	}
	return nil
}

// await waits for promise p to settle, giving the thread back to the
// browser's event loop meanwhile (see the top of this file), and returns its
// value or its rejection's reason as an error.
func await(p js.Value) (js.Value, error) {
	done := make(chan struct{})
	var v js.Value
	var err error
	then := js.FuncOf(func(_ js.Value, args []js.Value) any {
		v = args[0]
		close(done)
		return nil
	})
	defer then.Release()
	catch := js.FuncOf(func(_ js.Value, args []js.Value) any {
		err = errors.New(args[0].Call("toString").String())
		close(done)
		return nil
	})
	defer catch.Release()
	p.Call("then", then, catch)
	<-done
	return v, err
}

// computePipelineDescriptor describes the pipeline of kernel name (the
// browser's descriptor has no label).
func computePipelineDescriptor(_ string, layout *wgpu.PipelineLayout, module *wgpu.ShaderModule) *wgpu.ComputePipelineDescriptor {
	return &wgpu.ComputePipelineDescriptor{
		Layout:  layout,
		Compute: wgpu.ProgrammableStageDescriptor{Module: module, EntryPoint: "main"},
	}
}

// endComputePass ends pass; the browser reports an error asynchronously
// (asyncError).
func endComputePass(pass *wgpu.ComputePassEncoder) error {
	pass.End()
	return nil
}

// clearByKernel: the browser backend has no ClearBuffer, so Device.submit
// clears with autograd/clear.wgsl.
const clearByKernel = true

// clearBuffer is never called in the browser (clearByKernel).
func clearBuffer(*wgpu.CommandEncoder, *wgpu.Buffer) error {
	return errors.New("the browser's WebGPU backend has no ClearBuffer")
}

// destroy frees b's device memory at once (the backend's Release does
// nothing, leaving the memory to the garbage collectors); the browser
// keeps it until the work submitted before that reads it is done.
func destroy(b *wgpu.Buffer) { b.Destroy() }

// jsBuffer returns b's GPUBuffer.
//
// NOTE: cogentcore/webgpu v0.23.0 keeps it in an unexported field
// (Buffer{jsValue js.Value}, its only field), and its own
// Queue.WriteBuffer and Buffer.MapAsync cannot be used here: WriteBuffer
// views Go's memory through an ArrayBuffer taken before it allocates, so
// when that allocation grows the memory the view's buffer is detached
// ("Cannot perform Construct on a detached ArrayBuffer"), and MapAsync
// reports success when the map fails. bufferIsOneJSValue stops the build
// if the struct changes size.
func jsBuffer(b *wgpu.Buffer) js.Value { return *(*js.Value)(unsafe.Pointer(b)) }

const bufferIsOneJSValue = unsafe.Sizeof(wgpu.Buffer{}) - unsafe.Sizeof(js.Value{}) // 0, or the build stops below

var _ = [1]struct{}{}[bufferIsOneJSValue]

// writeBuffer writes data into b from its start, through a copy in a
// JavaScript array; the write reaches b before the next submission.
func (d *Device) writeBuffer(b *wgpu.Buffer, data []byte) error {
	arr := js.Global().Get("Uint8Array").New(len(data))
	js.CopyBytesToJS(arr, data)
	d.browser.queue.Call("writeBuffer", jsBuffer(b), 0, arr)
	return nil
}

// mapRead maps the first size bytes of staging for reading, waiting (and
// giving the event loop the thread) until the work submitted before is
// done, and returns the map's status: DeviceLost when the browser rejects
// the map.
func (d *Device) mapRead(staging *wgpu.Buffer, size uint64) (wgpu.BufferMapAsyncStatus, error) {
	if _, err := await(jsBuffer(staging).Call("mapAsync", uint32(wgpu.MapModeRead), 0, size)); err != nil {
		if d.lost() == "" {
			d.browser.events.Set("lost", "the read-back's map was rejected: "+err.Error())
		}
		return wgpu.BufferMapAsyncStatusDeviceLost, nil
	}
	return wgpu.BufferMapAsyncStatusSuccess, nil
}
