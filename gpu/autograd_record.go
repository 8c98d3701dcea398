package gpu

import (
	"fmt"
	"slices"

	"github.com/cogentcore/webgpu/wgpu"
)

// recorder holds the work an AutogradDevice has recorded and not yet
// submitted: its commands (see command; their bind groups are released
// once submitted) and their uniform buffers, which return to a free list
// once submitted.
type recorder struct {
	cmds     []command
	pending  int            // dispatches among cmds
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
	if a.rep != nil {
		a.refresh(shader, threads, params, bufs)
		return
	}
	if err := a.record(shader, threads, params, bufs); err != nil {
		a.fail(err)
	}
}

func (a *AutogradDevice) record(shader string, threads int, params any, bufs []*wgpu.Buffer) error {
	u, err := a.uniform(shader, params)
	if err != nil {
		return err
	}
	c, err := a.d.newCommand(shader, ceilDiv(threads, workgroupSize), u, bufs)
	if err != nil {
		return err
	}
	a.rec.cmds = append(a.rec.cmds, c)
	if a.cap != nil {
		a.cap.captured(cmdInfo{shader: shader, params: params, bufs: slices.Clone(bufs), uniform: u, threads: threads})
	}
	a.rec.dispatches++
	if a.rec.pending++; a.rec.pending >= maxPending {
		a.submit()
	}
	return nil
}

// clear records zeroing b.
func (a *AutogradDevice) clear(b *Buffer) {
	if a.failed() || b.buf == nil {
		return
	}
	a.rec.cmds = append(a.rec.cmds, command{clear: b})
	if a.cap != nil {
		a.cap.cur.infos = append(a.cap.cur.infos, cmdInfo{bufs: []*wgpu.Buffer{b.buf}})
	}
}

// uniform returns a uniform buffer holding params, from the free list when
// it has one. The write reaches the buffer before the next submission, and
// a free buffer is read by no recorded work, so reuse is safe.
func (a *AutogradDevice) uniform(shader string, params any) (*wgpu.Buffer, error) {
	raw := encodeParams(shader, params)
	if len(raw) > uniformSize {
		panic(fmt.Sprintf("gpu: params for %s are %d bytes, over the %d of an autograd uniform", shader, len(raw), uniformSize))
	}
	var u *wgpu.Buffer
	if n := len(a.rec.uniforms); n > 0 {
		u = a.rec.uniforms[n-1]
		a.rec.uniforms = a.rec.uniforms[:n-1]
	} else {
		var err error
		if u, err = a.d.newUniform("autograd", uniformSize); err != nil {
			return nil, err
		}
	}
	a.rec.used = append(a.rec.used, u)
	return u, a.d.writeParams(u, shader, raw)
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
		a.cache = indexCache{}
		return
	}
	if len(r.cmds) > 0 {
		if err := a.d.submit(r.cmds); err != nil {
			a.fail(fmt.Errorf("gpu: submitting the recorded work: %w", err))
		} else {
			r.submissions++
		}
	}
	if a.cap != nil {
		// Capturing: the program keeps the commands and their uniforms.
		a.cap.endSegment(r.cmds, r.used)
	} else {
		releaseGroups(r.cmds)
		r.uniforms = append(r.uniforms, r.used...)
	}
	clear(r.cmds)
	r.cmds = r.cmds[:0]
	r.used = r.used[:0]
	r.pending = 0
	a.pool.recycle()
}

// release frees the recorder's uniforms (after a final submit).
func (r *recorder) release() {
	for _, u := range append(r.uniforms, r.used...) {
		destroy(u)
	}
	r.uniforms, r.used = nil, nil
}
