package gpu

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/cogentcore/webgpu/wgpu"
)

// bufferBinding matches a kernel's declaration of a buffer binding, such as
// "@group(0) @binding(2) var<storage, read_write> out: array<f32>;".
var bufferBinding = regexp.MustCompile(`@group\(0\)\s*@binding\((\d+)\)\s*var<\s*(uniform|storage\s*,\s*read|storage\s*,\s*read_write)\s*>`)

// bindGroupLayout returns the entries of the bind group layout of kernel
// source src (group 0): one per binding it declares, a uniform or a storage
// buffer read only or read and written, visible to the compute stage.
//
// NOTE: the layout is written out rather than asked of the pipeline
// (GetBindGroupLayout, WebGPU's "auto" layout) because the browser backend
// of cogentcore/webgpu has no GetBindGroupLayout. Every kernel uses every
// binding it declares (the dispatches bind them by position), so the two
// layouts are the same.
func bindGroupLayout(name, src string) ([]wgpu.BindGroupLayoutEntry, error) {
	var entries []wgpu.BindGroupLayoutEntry
	for _, m := range bufferBinding.FindAllStringSubmatch(src, -1) {
		binding, _ := strconv.Atoi(m[1])
		if binding != len(entries) {
			return nil, fmt.Errorf("gpu: shaders/%s declares binding %d where %d was next: bindings must be numbered 0, 1, ... in order", name, binding, len(entries))
		}
		kind := wgpu.BufferBindingTypeStorage
		switch {
		case m[2] == "uniform":
			kind = wgpu.BufferBindingTypeUniform
		case !strings.HasSuffix(m[2], "read_write"):
			kind = wgpu.BufferBindingTypeReadOnlyStorage
		}
		entries = append(entries, wgpu.BindGroupLayoutEntry{
			Binding:    uint32(binding),
			Visibility: wgpu.ShaderStageCompute,
			Buffer:     wgpu.BufferBindingLayout{Type: kind},
		})
	}
	return entries, nil
}
