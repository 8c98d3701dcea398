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
	table     *Buffer                          // the gates' coefficient table, uploaded once
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

func init() {
	// wgpu-native logs to stderr (warnings about the missing window system
	// that a headless device never needs, and every error, which the calls
	// return to us anyway).
	wgpu.SetLogLevel(wgpu.LogLevelOff)
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
	}
	if d.table, err = d.uploadTable(); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// Close releases the device and everything it created. Closing twice does
// nothing.
func (d *Device) Close() {
	if d.dev == nil {
		return
	}
	for _, name := range sortedKeys(d.pipelines) {
		d.pipelines[name].Release()
	}
	d.pipelines = nil
	if d.table != nil {
		d.table.Release()
	}
	d.queue.Release()
	d.dev.Release()
	d.adapter.Release()
	d.instance.Release()
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
