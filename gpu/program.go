package gpu

import (
	"bytes"
	"embed"
	"encoding/binary"
	"fmt"

	"github.com/cogentcore/webgpu/wgpu"
)

// shaders holds one WGSL kernel per file (the cellular automaton's, and
// autograd's under shaders/autograd/); a pipeline is labelled by its file
// name so that compiler errors point at the file.
//
//go:embed shaders/*.wgsl shaders/autograd/*.wgsl
var shaders embed.FS

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
// compiling it on first use.
func (d *Device) pipeline(name string) (*wgpu.ComputePipeline, error) {
	if p, ok := d.pipelines[name]; ok {
		return p, nil
	}
	src, err := shaders.ReadFile("shaders/" + name)
	if err != nil {
		panic(fmt.Sprintf("gpu: no shader %q", name))
	}
	module, err := d.dev.CreateShaderModule(&wgpu.ShaderModuleDescriptor{
		Label:          name,
		WGSLDescriptor: &wgpu.ShaderModuleWGSLDescriptor{Code: string(src)},
	})
	if err != nil {
		return nil, fmt.Errorf("gpu: compiling shaders/%s: %v", name, err)
	}
	defer module.Release()
	p, err := d.dev.CreateComputePipeline(&wgpu.ComputePipelineDescriptor{
		Label:   name,
		Compute: wgpu.ProgrammableStageDescriptor{Module: module, EntryPoint: "main"},
	})
	if err != nil {
		return nil, fmt.Errorf("gpu: pipeline for shaders/%s: %v", name, err)
	}
	d.pipelines[name] = p
	return p, nil
}

// command is one recorded step of a Program: a dispatch or a buffer clear.
type command struct {
	pipeline *wgpu.ComputePipeline
	group    *wgpu.BindGroup
	x        uint32 // workgroups
	clear    *Buffer
}

// Program is a recorded sequence of kernel dispatches and buffer clears that
// runs as one command submission. Bind groups and uniform buffers are built
// once when recording, so running a Program again costs only the encoding.
type Program struct {
	Ops      // the tensor and gate kernels, recorded into this program
	d        *Device
	cmds     []command
	groups   []*wgpu.BindGroup
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
	return p.DispatchGroups(shader, (threads+workgroupSize-1)/workgroupSize, params, bufs...)
}

// DispatchGroups is Dispatch with the number of workgroups given directly,
// for kernels in which a workgroup computes one output (the gate sums).
// Both cap the workgroups at what the device can keep busy; the kernels'
// loops cover the rest.
func (p *Program) DispatchGroups(shader string, workgroups int, params any, bufs ...*Buffer) error {
	if workgroups == 0 {
		return nil
	}
	pipe, err := p.d.pipeline(shader)
	if err != nil {
		return err
	}
	var entries []wgpu.BindGroupEntry
	if params != nil {
		u, err := p.uniform(shader, params)
		if err != nil {
			return err
		}
		entries = append(entries, wgpu.BindGroupEntry{Binding: 0, Buffer: u, Size: wgpu.WholeSize})
	}
	for _, b := range bufs {
		entries = append(entries, wgpu.BindGroupEntry{Binding: uint32(len(entries)), Buffer: b.buf, Size: wgpu.WholeSize})
	}
	layout := pipe.GetBindGroupLayout(0)
	defer layout.Release()
	group, err := p.d.dev.CreateBindGroup(&wgpu.BindGroupDescriptor{Label: shader, Layout: layout, Entries: entries})
	if err != nil {
		return fmt.Errorf("gpu: binding buffers for shaders/%s: %v", shader, err)
	}
	p.groups = append(p.groups, group)
	p.cmds = append(p.cmds, command{pipeline: pipe, group: group, x: uint32(min(workgroups, p.d.maxWorkgroups()))})
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

// uniform uploads params into a new uniform buffer owned by the program.
func (p *Program) uniform(shader string, params any) (*wgpu.Buffer, error) {
	var raw bytes.Buffer
	if err := binary.Write(&raw, binary.LittleEndian, params); err != nil {
		panic(fmt.Sprintf("gpu: params for %s are not a plain struct: %v", shader, err))
	}
	if raw.Len()%16 != 0 {
		panic(fmt.Sprintf("gpu: params for %s are %d bytes, not a multiple of 16 (add explicit padding)", shader, raw.Len()))
	}
	u, err := p.d.dev.CreateBufferInit(&wgpu.BufferInitDescriptor{
		Label: shader + " params", Contents: raw.Bytes(),
		Usage: wgpu.BufferUsageUniform | wgpu.BufferUsageCopyDst,
	})
	if err != nil {
		return nil, fmt.Errorf("gpu: uniform buffer for shaders/%s: %v", shader, err)
	}
	p.uniforms = append(p.uniforms, u)
	return u, nil
}

// Run encodes the program and submits it as one command buffer. It does not
// wait: a later Read waits for it.
func (p *Program) Run() error {
	enc, err := p.d.dev.CreateCommandEncoder(nil)
	if err != nil {
		return fmt.Errorf("gpu: command encoder: %v", err)
	}
	defer enc.Release()
	var pass *wgpu.ComputePassEncoder
	endPass := func() error {
		if pass == nil {
			return nil
		}
		err := pass.End()
		pass.Release() // before Finish, see wgpu-native issue 412
		pass = nil
		return err
	}
	for _, c := range p.cmds {
		if c.clear != nil {
			if err := endPass(); err != nil {
				return fmt.Errorf("gpu: compute pass: %v", err)
			}
			if err := enc.ClearBuffer(c.clear.buf, 0, wgpu.WholeSize); err != nil {
				return fmt.Errorf("gpu: clearing %q: %v", c.clear.Label, err)
			}
			continue
		}
		if pass == nil {
			pass = enc.BeginComputePass(nil)
		}
		pass.SetPipeline(c.pipeline)
		pass.SetBindGroup(0, c.group, nil)
		pass.DispatchWorkgroups(c.x, 1, 1)
	}
	if err := endPass(); err != nil {
		return fmt.Errorf("gpu: compute pass: %v", err)
	}
	cmd, err := enc.Finish(nil)
	if err != nil {
		return fmt.Errorf("gpu: finishing commands: %v", err)
	}
	defer cmd.Release()
	p.d.queue.Submit(cmd)
	return nil
}

// Release frees the program's bind groups and uniform buffers.
func (p *Program) Release() {
	for _, g := range p.groups {
		g.Release()
	}
	for _, u := range p.uniforms {
		u.Release()
	}
	p.groups, p.uniforms, p.cmds = nil, nil, nil
}
