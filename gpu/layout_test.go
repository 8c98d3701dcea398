package gpu

import (
	"strings"
	"testing"

	"github.com/cogentcore/webgpu/wgpu"
)

// TestBindGroupLayout checks the layout written out from a kernel's
// declarations: one entry per binding in order, the kind each declares.
func TestBindGroupLayout(t *testing.T) {
	src := `
@group(0) @binding(0) var<uniform> params: P;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage,read_write> b: array<f32>;
var<workgroup> tile: array<f32, 64>;
@group(0)  @binding(3)  var<storage, read_write> c: array<u32>;
`
	got, err := bindGroupLayout("test.wgsl", src)
	if err != nil {
		t.Fatal(err)
	}
	want := []wgpu.BufferBindingType{wgpu.BufferBindingTypeUniform, wgpu.BufferBindingTypeReadOnlyStorage,
		wgpu.BufferBindingTypeStorage, wgpu.BufferBindingTypeStorage}
	if len(got) != len(want) {
		t.Fatalf("%d entries, want %d: %+v", len(got), len(want), got)
	}
	for i, e := range got {
		if e.Binding != uint32(i) || e.Buffer.Type != want[i] || e.Visibility != wgpu.ShaderStageCompute {
			t.Errorf("entry %d: binding %d, type %v, visibility %v; want binding %d, type %v, compute", i, e.Binding, e.Buffer.Type, e.Visibility, i, want[i])
		}
	}
	_, err = bindGroupLayout("gap.wgsl", "@group(0) @binding(0) var<uniform> p: P;\n@group(0) @binding(2) var<storage, read> a: array<f32>;")
	if err == nil || !strings.Contains(err.Error(), "gap.wgsl") || !strings.Contains(err.Error(), "binding 2") {
		t.Errorf("a gap in the bindings: %v, want an error naming the file and binding 2", err)
	}
}

// TestEveryKernelHasALayout writes out every kernel's layout: each declares
// at least one binding, numbered from 0 without gaps.
func TestEveryKernelHasALayout(t *testing.T) {
	for _, path := range allShaders(t) {
		name := strings.TrimPrefix(path, "shaders/")
		entries, err := bindGroupLayout(name, kernelSource(t, path))
		if err != nil {
			t.Error(err)
		} else if len(entries) == 0 {
			t.Errorf("%s: no bindings found", name)
		}
	}
}

// TestClearKernel runs autograd/clear.wgsl, the browser's buffer clear
// (clearByKernel), on the device: every element of a buffer zeroed,
// including one past a workgroup's worth.
func TestClearKernel(t *testing.T) {
	d := testDevice(t)
	data := make([]uint32, 3*workgroupSize+5)
	for i := range data {
		data[i] = uint32(i) + 1
	}
	b, err := NewBufferFrom(d, "to clear", data)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	c, err := d.newCommand(clearShader, 1, nil, []*wgpu.Buffer{b.buf})
	if err != nil {
		t.Fatal(err)
	}
	defer releaseGroups([]command{c})
	if err := d.submit([]command{c}); err != nil {
		t.Fatal(err)
	}
	got, err := Read[uint32](d, b, len(data))
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if v != 0 {
			t.Fatalf("element %d of %d is %d after the clear kernel, want 0", i, len(got), v)
		}
	}
}
