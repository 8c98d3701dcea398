package gpu

import (
	"errors"
	"fmt"
	"os"
	"sort"

	"github.com/cogentcore/webgpu/wgpu"
)

// ErrNoAdapter is returned by Open when no WebGPU adapter exists.
var ErrNoAdapter = errors.New("gpu: no WebGPU adapter found (no Vulkan, Metal or DirectX 12 device); " +
	"on Debian/Ubuntu install a Vulkan driver: apt-get install mesa-vulkan-drivers libvulkan1 " +
	"(Mesa's lavapipe runs on the CPU when there is no GPU), or train with -device cpu")

// Device is an open WebGPU device with its queue, the adapter it came from
// and the limits it was granted.
type Device struct {
	Info   wgpu.AdapterInfo
	Limits wgpu.Limits

	instance *wgpu.Instance
	adapter  *wgpu.Adapter
	dev      *wgpu.Device
	queue    *wgpu.Queue

	pipelines map[string]*wgpu.ComputePipeline // by shader file name, built on first use
	layouts   map[string]*wgpu.BindGroupLayout // the pipelines' bind group layouts, by shader file name
	browser   browserState                     // what only the browser's WebGPU needs (device_js.go)
	table     *Buffer                          // the gates' coefficient table, uploaded once
	unused    *Buffer                          // see unusedBinding
	allocated int64                            // bytes of live storage buffers (see allocate)
}

// adapterRank orders adapter types by preference: lower is better.
func adapterRank(t wgpu.AdapterType) int {
	switch t {
	case wgpu.AdapterTypeDiscreteGPU:
		return 0
	case wgpu.AdapterTypeIntegratedGPU:
		return 1
	case wgpu.AdapterTypeCPU:
		return 2
	}
	return 3
}

// Open opens the best headless adapter: a discrete GPU, else an integrated
// one, else a CPU adapter (lavapipe). Among equals the Vulkan, Metal or
// DirectX 12 backend listed first wins. It requests the adapter's own limits.
// Open returns ErrNoAdapter when there is none.
func Open() (*Device, error) {
	quietRuntimeDir()
	// NOTE: webgpu v0.23.0 also mallocs the native limits it sends with the
	// device request without initialising maxNonSamplerBindings, so a
	// request can fail on garbage; a fresh instance gets a fresh try.
	var err error
	for range openAttempts {
		var d *Device
		if d, err = open(); err == nil || errors.Is(err, ErrNoAdapter) {
			return d, err
		}
	}
	return nil, err
}

// quietRuntimeDir points XDG_RUNTIME_DIR at the temporary directory when it
// is unset or names no directory (a headless server, CI, a container).
//
// NOTE: Mesa's Vulkan window-system code prints "XDG_RUNTIME_DIR is invalid or
// not set" to stderr once per instance and adapter without one, although a
// headless compute device never uses it: several lines of noise in every
// command. A user's own working setting is kept.
func quietRuntimeDir() {
	if dir := os.Getenv("XDG_RUNTIME_DIR"); dir != "" {
		if info, err := os.Stat(dir); err == nil && info.IsDir() {
			return
		}
	}
	os.Setenv("XDG_RUNTIME_DIR", os.TempDir())
}

// openAttempts bounds Open's retries of a refused device request.
const openAttempts = 4

// Close releases the device and everything it created. Closing twice does
// nothing.
func (d *Device) Close() {
	if d.dev == nil {
		return
	}
	for _, name := range sortedKeys(d.pipelines) {
		d.pipelines[name].Release()
		d.layouts[name].Release()
	}
	d.pipelines, d.layouts = nil, nil
	if d.table != nil {
		d.table.Release()
	}
	if d.unused != nil {
		d.unused.Release()
	}
	d.queue.Release()
	d.dev.Release()
	if d.adapter != nil { // the browser's device has neither (device_js.go)
		d.adapter.Release()
		d.instance.Release()
	}
	d.dev = nil
}

// IsSoftware reports whether the device is a CPU implementation (lavapipe,
// SwiftShader, WARP): correct, but its timings say nothing about a GPU.
func (d *Device) IsSoftware() bool { return d.Info.AdapterType == wgpu.AdapterTypeCPU }

// String describes the chosen adapter, for logs and benchmark reports.
func (d *Device) String() string {
	return fmt.Sprintf("%s; max buffer %d MiB, max storage binding %d MiB, %d storage buffers per stage",
		describe(d.Info), d.Limits.MaxBufferSize>>20, d.Limits.MaxStorageBufferBindingSize>>20,
		d.Limits.MaxStorageBuffersPerShaderStage)
}

func describe(info wgpu.AdapterInfo) string {
	name := info.DriverDescription
	if info.Name != "" && info.Name != "0x0" {
		name = info.Name + " (" + info.DriverDescription + ")"
	}
	return fmt.Sprintf("%s, %v adapter, %v backend", name, info.AdapterType, info.BackendType)
}

// RequireEnv is the environment variable that turns a missing adapter from a
// skipped test into a failed one (CI sets DLCA_REQUIRE_GPU=1).
const RequireEnv = "DLCA_REQUIRE_GPU"

// Required reports whether RequireEnv asks for a GPU adapter to be present.
func Required() bool { return os.Getenv(RequireEnv) == "1" }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
