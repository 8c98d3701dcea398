package gpu

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/cogentcore/webgpu/wgpu"
)

// recorder holds the work an AutogradDevice has recorded and not yet
// submitted: one command encoder, the bind groups its dispatches use, and
// their uniform buffers, which return to a free list once submitted.
type recorder struct {
	enc      *wgpu.CommandEncoder
	pending  int
	groups   []*wgpu.BindGroup
	used     []*wgpu.Buffer // uniforms of the recorded dispatches
	uniforms []*wgpu.Buffer // free uniforms

	// dispatches and submissions count what the device has recorded and
	// submitted since it was opened (see AutogradDevice.Counts).
	dispatches, submissions int
}

// maxPending bounds the dispatches recorded before a submission, so that a
// long computation never read back still runs and recycles its memory.
const maxPending = 256

// uniformSize is the size of every uniform buffer: the largest params
// struct of the autograd kernels, rounded up.
const uniformSize = 256

// dispatch records kernel shader (a file under shaders/) over threads
// invocations with params in binding 0 (a plain struct of 4-byte fields, a
// multiple of 16 bytes, at most uniformSize) and bufs in bindings 1... It
// records nothing once the device has failed, or when a buffer is nil (a
// failed allocation, whose error the device holds).
func (a *AutogradDevice) dispatch(shader string, threads int, params any, bufs ...*wgpu.Buffer) {
	if a.failed() || threads == 0 {
		return
	}
	for _, b := range bufs {
		if b == nil {
			return
		}
	}
	if err := a.record(shader, threads, params, bufs); err != nil {
		a.fail(err)
	}
}

func (a *AutogradDevice) record(shader string, threads int, params any, bufs []*wgpu.Buffer) error {
	pipe, err := a.d.pipeline(shader)
	if err != nil {
		return err
	}
	u, err := a.uniform(shader, params)
	if err != nil {
		return err
	}
	entries := []wgpu.BindGroupEntry{{Binding: 0, Buffer: u, Size: wgpu.WholeSize}}
	for _, b := range bufs {
		entries = append(entries, wgpu.BindGroupEntry{Binding: uint32(len(entries)), Buffer: b, Size: wgpu.WholeSize})
	}
	layout := pipe.GetBindGroupLayout(0)
	defer layout.Release()
	group, err := a.d.dev.CreateBindGroup(&wgpu.BindGroupDescriptor{Label: shader, Layout: layout, Entries: entries})
	if err != nil {
		return fmt.Errorf("gpu: binding buffers for shaders/%s: %v", shader, err)
	}
	a.rec.groups = append(a.rec.groups, group)
	if a.rec.enc == nil {
		if a.rec.enc, err = a.d.dev.CreateCommandEncoder(nil); err != nil {
			return fmt.Errorf("gpu: command encoder: %v", err)
		}
	}
	pass := a.rec.enc.BeginComputePass(nil)
	pass.SetPipeline(pipe)
	pass.SetBindGroup(0, group, nil)
	groups := min((threads+workgroupSize-1)/workgroupSize, a.d.maxWorkgroups())
	pass.DispatchWorkgroups(uint32(groups), 1, 1)
	err = pass.End()
	pass.Release() // before Finish, see wgpu-native issue 412
	if err != nil {
		return fmt.Errorf("gpu: compute pass of shaders/%s: %v", shader, err)
	}
	a.rec.dispatches++
	if a.rec.pending++; a.rec.pending >= maxPending {
		a.submit()
	}
	return nil
}

// uniform returns a uniform buffer holding params, from the free list when
// it has one. The write reaches the buffer before the next submission, and
// a free buffer is read by no recorded work, so reuse is safe.
func (a *AutogradDevice) uniform(shader string, params any) (*wgpu.Buffer, error) {
	var raw bytes.Buffer
	if err := binary.Write(&raw, binary.LittleEndian, params); err != nil {
		panic(fmt.Sprintf("gpu: params for %s are not a plain struct: %v", shader, err))
	}
	if raw.Len()%16 != 0 || raw.Len() > uniformSize {
		panic(fmt.Sprintf("gpu: params for %s are %d bytes, want a multiple of 16 up to %d", shader, raw.Len(), uniformSize))
	}
	var u *wgpu.Buffer
	if n := len(a.rec.uniforms); n > 0 {
		u = a.rec.uniforms[n-1]
		a.rec.uniforms = a.rec.uniforms[:n-1]
	} else {
		var err error
		u, err = a.d.dev.CreateBuffer(&wgpu.BufferDescriptor{
			Label: "autograd params", Size: uniformSize,
			Usage: wgpu.BufferUsageUniform | wgpu.BufferUsageCopyDst,
		})
		if err != nil {
			return nil, fmt.Errorf("gpu: uniform buffer for shaders/%s: %v", shader, err)
		}
	}
	a.rec.used = append(a.rec.used, u)
	if err := a.d.queue.WriteBuffer(u, 0, raw.Bytes()); err != nil {
		return nil, fmt.Errorf("gpu: writing the params of shaders/%s: %v", shader, err)
	}
	return u, nil
}

// submit submits the recorded work, if any, then recycles the uniforms and
// the buffers of tensors freed before it.
func (a *AutogradDevice) submit() {
	r := &a.rec
	if a.failed() && a.d.dev == nil {
		// The Device was closed under us: its objects are gone, so the
		// recorded work is dropped, not released.
		*r = recorder{}
		a.pool = pool{free: map[uint64][]*wgpu.Buffer{}}
		return
	}
	if r.enc != nil {
		cmd, err := r.enc.Finish(nil)
		r.enc.Release()
		r.enc = nil
		if err != nil {
			a.fail(fmt.Errorf("gpu: finishing the recorded work: %v", err))
		} else {
			a.d.queue.Submit(cmd)
			cmd.Release()
			r.submissions++
		}
	}
	for _, g := range r.groups {
		g.Release()
	}
	r.groups = r.groups[:0]
	r.uniforms = append(r.uniforms, r.used...)
	r.used = r.used[:0]
	r.pending = 0
	a.pool.recycle()
}

// release frees the recorder's uniforms (after a final submit).
func (r *recorder) release() {
	for _, u := range append(r.uniforms, r.used...) {
		u.Release()
	}
	r.uniforms, r.used = nil, nil
}
