package gpu

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/cogentcore/webgpu/wgpu"
)

// The recording and submission both GPU paths share: a Program (the
// engine's, recorded once and rerun) and an AutogradDevice (recorded op by
// op, submitted in batches) turn each kernel call into a command with
// newCommand and submit their commands with Device.submit.

// command is one recorded step: a dispatch or a buffer clear.
type command struct {
	pipeline *wgpu.ComputePipeline
	group    *wgpu.BindGroup
	x        uint32 // workgroups
	clear    *Buffer
}

// newCommand returns a dispatch of shader over workgroups workgroups
// (capped at what the device keeps busy; kernels loop over the rest) with
// the uniform u in binding 0 (nil for none: the buffers then start at
// binding 0) and bufs in the bindings after it. The caller releases its
// bind group.
func (d *Device) newCommand(shader string, workgroups int, u *wgpu.Buffer, bufs []*wgpu.Buffer) (command, error) {
	pipe, err := d.pipeline(shader)
	if err != nil {
		return command{}, err
	}
	var entries []wgpu.BindGroupEntry
	if u != nil {
		entries = append(entries, wgpu.BindGroupEntry{Binding: 0, Buffer: u, Size: wgpu.WholeSize})
	}
	for _, b := range bufs {
		entries = append(entries, wgpu.BindGroupEntry{Binding: uint32(len(entries)), Buffer: b, Size: wgpu.WholeSize})
	}
	group, err := d.dev.CreateBindGroup(&wgpu.BindGroupDescriptor{Label: shader, Layout: d.layouts[shader], Entries: entries})
	if err != nil {
		return command{}, fmt.Errorf("gpu: binding buffers for shaders/%s: %v", shader, err)
	}
	return command{pipeline: pipe, group: group, x: uint32(min(workgroups, d.maxWorkgroups()))}, nil
}

// clearShader is the kernel that clears a buffer where the encoder cannot
// (clearByKernel).
const clearShader = "autograd/clear.wgsl"

// submit encodes cmds, the dispatches between clears in one compute pass,
// and submits them as one command buffer. It does not wait: a later Read
// waits for it.
func (d *Device) submit(cmds []command) error {
	enc, err := d.dev.CreateCommandEncoder(nil)
	if err != nil {
		return fmt.Errorf("gpu: command encoder: %v", err)
	}
	defer enc.Release()
	var pass *wgpu.ComputePassEncoder
	endPass := func() error {
		if pass == nil {
			return nil
		}
		err := endComputePass(pass)
		pass.Release() // before Finish, see wgpu-native issue 412
		pass = nil
		return err
	}
	var clears []command // clear kernels' dispatches, released after the submission
	defer func() { releaseGroups(clears) }()
	for _, c := range cmds {
		if c.clear != nil && clearByKernel {
			k, err := d.newCommand(clearShader, max(1, ceilDiv(c.clear.N, workgroupSize)), nil, []*wgpu.Buffer{c.clear.buf})
			if err != nil {
				return fmt.Errorf("gpu: clearing %q: %v", c.clear.Label, err)
			}
			clears = append(clears, k)
			c = k
		}
		if c.clear != nil {
			if err := endPass(); err != nil {
				return fmt.Errorf("gpu: compute pass: %v", err)
			}
			if err := clearBuffer(enc, c.clear.buf); err != nil {
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
	d.queue.Submit(cmd)
	return nil
}

// releaseGroups frees the bind groups of cmds.
func releaseGroups(cmds []command) {
	for _, c := range cmds {
		if c.group != nil {
			c.group.Release()
		}
	}
}

// encodeParams returns the bytes of a kernel's uniform params: a plain
// struct of 4-byte fields whose size is a multiple of 16 (WGSL's uniform
// layout), mirrored by the kernel's params struct.
func encodeParams(shader string, params any) []byte {
	var raw bytes.Buffer
	if err := binary.Write(&raw, binary.LittleEndian, params); err != nil {
		panic(fmt.Sprintf("gpu: params for %s are not a plain struct: %v", shader, err))
	}
	if raw.Len()%16 != 0 {
		panic(fmt.Sprintf("gpu: params for %s are %d bytes, not a multiple of 16 (add explicit padding)", shader, raw.Len()))
	}
	return raw.Bytes()
}

// newUniform allocates a uniform buffer of size bytes for shader's params.
func (d *Device) newUniform(shader string, size int) (*wgpu.Buffer, error) {
	u, err := d.dev.CreateBuffer(&wgpu.BufferDescriptor{
		Label: shader + " params", Size: uint64(size),
		Usage: wgpu.BufferUsageUniform | wgpu.BufferUsageCopyDst,
	})
	if err != nil {
		return nil, fmt.Errorf("gpu: uniform buffer for shaders/%s: %v", shader, err)
	}
	return u, nil
}

// writeParams writes shader's params into the uniform u; the write reaches
// u before the next submission.
func (d *Device) writeParams(u *wgpu.Buffer, shader string, raw []byte) error {
	if err := d.writeBuffer(u, raw); err != nil {
		return fmt.Errorf("gpu: writing the params of shaders/%s: %v", shader, err)
	}
	return nil
}
