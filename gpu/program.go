package gpu

import (
	"fmt"

	"github.com/cogentcore/webgpu/wgpu"
)

// workgroupSize is the @workgroup_size of every elementwise kernel; kernels
// that reduce use one workgroup of this size per output.
const workgroupSize = 64

// Every kernel loops over its elements with a stride of all the invocations
// dispatched (a grid-stride loop), so a dispatch needs no more workgroups
// than the device can keep busy: per-workgroup overhead dominates on a
// software adapter (llvmpipe runs each workgroup as a function call), and
// WebGPU allows only 65535 workgroups per dimension anyway.
const (
	maxWorkgroupsGPU      = 16384 // 1M invocations: enough to fill an H100
	maxWorkgroupsSoftware = 64    // a few per CPU core
)

// maxWorkgroups is the most workgroups one dispatch of d uses.
func (d *Device) maxWorkgroups() int {
	if d.IsSoftware() {
		return maxWorkgroupsSoftware
	}
	return maxWorkgroupsGPU
}

// pipeline returns the compute pipeline of shaders/name (entry point "main"),
// compiling it, with the helper files it asks for, on first use, and keeps
// its bind group layout in d.layouts.
func (d *Device) pipeline(name string) (*wgpu.ComputePipeline, error) {
	if p, ok := d.pipelines[name]; ok {
		return p, nil
	}
	src, err := shaderSource(shaders, name)
	if err != nil {
		return nil, err
	}
	return d.compile(name, src)
}

// compile returns the compute pipeline of WGSL source src (entry point
// "main"), kept under name for pipeline: the kernels under shaders/, and
// the fused kernels that fuse.go generates.
func (d *Device) compile(name, src string) (*wgpu.ComputePipeline, error) {
	module, err := d.dev.CreateShaderModule(&wgpu.ShaderModuleDescriptor{
		Label:          name,
		WGSLDescriptor: &wgpu.ShaderModuleWGSLDescriptor{Code: src},
	})
	if err != nil {
		return nil, fmt.Errorf("gpu: compiling shaders/%s: %v", name, err)
	}
	defer module.Release()
	entries, err := bindGroupLayout(name, src)
	if err != nil {
		return nil, err
	}
	group, err := d.dev.CreateBindGroupLayout(&wgpu.BindGroupLayoutDescriptor{Label: name, Entries: entries})
	if err != nil {
		return nil, fmt.Errorf("gpu: bind group layout for shaders/%s: %v", name, err)
	}
	layout, err := d.dev.CreatePipelineLayout(&wgpu.PipelineLayoutDescriptor{Label: name, BindGroupLayouts: []*wgpu.BindGroupLayout{group}})
	if err != nil {
		group.Release()
		return nil, fmt.Errorf("gpu: pipeline layout for shaders/%s: %v", name, err)
	}
	defer layout.Release()
	p, err := d.dev.CreateComputePipeline(computePipelineDescriptor(name, layout, module))
	if err != nil {
		group.Release()
		return nil, fmt.Errorf("gpu: pipeline for shaders/%s: %v", name, err)
	}
	d.pipelines[name] = p
	d.layouts[name] = group
	return p, nil
}

// Program is a recorded sequence of kernel dispatches and buffer clears that
// runs as one command submission. Bind groups and uniform buffers are built
// once when recording, so running a Program again costs only the encoding.
type Program struct {
	Ops      // the tensor and gate kernels, recorded into this program
	d        *Device
	cmds     []command
	uniforms []*wgpu.Buffer
}

// NewProgram starts an empty program on d.
func (d *Device) NewProgram() *Program {
	p := &Program{d: d}
	p.Ops = Ops{p}
	return p
}

// device returns the device p runs on.
func (p *Program) device() *Device { return p.d }

// Dispatch records kernel shader over threads invocations (rounded up to
// workgroups of workgroupSize). Binding 0 is the uniform params (a struct of
// 4-byte fields whose size is a multiple of 16; nil for none, then the
// buffers start at binding 0), bindings 1.. are the storage buffers in order.
func (p *Program) Dispatch(shader string, threads int, params any, bufs ...*Buffer) error {
	return p.DispatchGroups(shader, ceilDiv(threads, workgroupSize), params, bufs...)
}

// DispatchGroups is Dispatch with the number of workgroups given directly,
// for kernels in which a workgroup computes one output (the gate sums).
// Both cap the workgroups at what the device can keep busy; the kernels'
// loops cover the rest.
func (p *Program) DispatchGroups(shader string, workgroups int, params any, bufs ...*Buffer) error {
	if workgroups == 0 {
		return nil
	}
	var u *wgpu.Buffer
	if params != nil {
		raw := encodeParams(shader, params)
		var err error
		if u, err = p.d.newUniform(shader, len(raw)); err != nil {
			return err
		}
		p.uniforms = append(p.uniforms, u)
		if err := p.d.writeParams(u, shader, raw); err != nil {
			return err
		}
	}
	raw := make([]*wgpu.Buffer, len(bufs))
	for i, b := range bufs {
		raw[i] = b.buf
	}
	c, err := p.d.newCommand(shader, workgroups, u, raw)
	if err != nil {
		return err
	}
	p.cmds = append(p.cmds, c)
	return nil
}

// Dispatches returns the number of kernel dispatches recorded, for
// benchmarks (dlca-bench's per-op rows).
func (p *Program) Dispatches() int {
	n := 0
	for _, c := range p.cmds {
		if c.clear == nil {
			n++
		}
	}
	return n
}

// Clear records zeroing b.
func (p *Program) Clear(b *Buffer) { p.cmds = append(p.cmds, command{clear: b}) }

// Run encodes the program and submits it as one command buffer. It does not
// wait: a later Read waits for it.
func (p *Program) Run() error { return p.d.submit(p.cmds) }

// runTogether submits programs, in order, as one command buffer: the
// programs of one phase that another may also run apart.
func runTogether(ps ...*Program) error {
	var cmds []command
	for _, p := range ps {
		cmds = append(cmds, p.cmds...)
	}
	return ps[0].d.submit(cmds)
}

// Release frees the program's bind groups and uniform buffers.
func (p *Program) Release() {
	releaseGroups(p.cmds)
	for _, u := range p.uniforms {
		destroy(u)
	}
	p.uniforms, p.cmds = nil, nil
}
