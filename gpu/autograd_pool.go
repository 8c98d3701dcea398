package gpu

import (
	"fmt"
	"runtime"
	"weak"

	"github.com/cogentcore/webgpu/wgpu"
)

// pool is the device memory of an AutogradDevice's tensors: buffers by size
// in bytes, each free, lent to a live storage, or retired.
//
// A storage holds its buffer until the garbage collector finds it
// unreachable. The pool keeps a weak pointer to each storage it lends to,
// which the collector clears, so the pool learns of a dead tensor exactly
// when a collection has run, with no finaliser goroutine to wait for. The
// buffer of a dead tensor may still be read by recorded work: it waits as
// retired until the next submission, after which any new use is ordered
// after that work (and a queue write, such as an upload, too).
type pool struct {
	free     map[uint64][]*wgpu.Buffer
	lent     []loan
	retired  []loan
	reserved uint64 // bytes of every buffer made
	inUse    uint64 // bytes lent
	liveAtGC uint64 // bytes lent right after take last ran the collector
	created  int    // buffers made (see AutogradDevice.Uploaded)

	// pinned counts the captured programs using each buffer (see pin);
	// parked holds those of them no tensor holds, by size, out of free.
	pinned map[*wgpu.Buffer]int
	parked map[*wgpu.Buffer]uint64
}

// loan is a buffer lent to a storage.
type loan struct {
	s    weak.Pointer[storage]
	buf  *wgpu.Buffer
	size uint64
}

// tensorWhat and tensorHint name a tensor's buffer in allocation errors.
const (
	tensorWhat = "an autograd tensor"
	tensorHint = "use smaller batches or layers, or the CPU"
)

// gcGarbage is the least device memory lent since the last collection
// (beyond what was live after it) for which take runs the collector rather
// than allocate: collections cost milliseconds, buffers are cheap.
const gcGarbage = 4 << 20

// take returns a buffer of size bytes, in this order: a free one; one of a
// tensor the collector has found dead (after submitting the work that may
// read it); the same after running the collector, when at least
// max(gcGarbage, what was live after the last collection) has been lent
// since; a new one. So the pool stops growing once it holds what a step
// keeps alive plus about that much. When the device refuses a new buffer,
// take collects, gives the free buffers of other sizes back to the device
// and tries once more.
func (a *AutogradDevice) take(size uint64) (*wgpu.Buffer, error) {
	p := &a.pool
	if b := p.takeFree(size); b != nil {
		return b, nil
	}
	for attempt := range 2 {
		if attempt == 1 {
			if p.inUse < p.liveAtGC+max(gcGarbage, p.liveAtGC) {
				break
			}
			runtime.GC()
		}
		found := p.reclaim(size)
		if attempt == 1 {
			p.liveAtGC = p.inUse
		}
		if found {
			a.submit() // recycles the retired buffers
			if b := p.takeFree(size); b != nil {
				return b, nil
			}
		}
	}
	b, err := a.d.allocate(tensorWhat, size, tensorHint)
	if err != nil {
		// Out of device memory, perhaps: free every dead tensor's buffer
		// (garbage of any size) and try once more.
		runtime.GC()
		p.reclaim(0)
		a.submit()
		p.liveAtGC = p.inUse
		if b := p.takeFree(size); b != nil {
			return b, nil
		}
		p.releaseFree(a.d)
		if b, err = a.d.allocate(tensorWhat, size, tensorHint); err != nil {
			return nil, fmt.Errorf("%w (with %s of tensors live on the device)", err, mib(int64(p.inUse)))
		}
	}
	p.reserved += size
	p.inUse += size
	p.created++
	return b, nil
}

// takeFree returns a free buffer of size bytes, or nil.
func (p *pool) takeFree(size uint64) *wgpu.Buffer {
	free := p.free[size]
	if len(free) == 0 {
		return nil
	}
	p.free[size] = free[:len(free)-1]
	p.inUse += size
	return free[len(free)-1]
}

// lend records that s holds buf, of size bytes.
func (p *pool) lend(s *storage, size uint64) {
	p.lent = append(p.lent, loan{weak.Make(s), s.buf, size})
}

// reclaim retires the buffers of the storages the collector has found dead
// and reports whether one of size bytes is retired.
func (p *pool) reclaim(size uint64) bool {
	live := p.lent[:0]
	for _, l := range p.lent {
		if l.s.Value() != nil {
			live = append(live, l)
			continue
		}
		p.retired = append(p.retired, loan{buf: l.buf, size: l.size})
		p.inUse -= l.size
	}
	clear(p.lent[len(live):])
	p.lent = live
	for _, l := range p.retired {
		if l.size == size {
			return true
		}
	}
	return false
}

// recycle frees the retired buffers: called after a submission.
func (p *pool) recycle() {
	for _, l := range p.retired {
		if p.pinned[l.buf] > 0 {
			p.parked[l.buf] = l.size
			continue
		}
		p.free[l.size] = append(p.free[l.size], l.buf)
	}
	clear(p.retired)
	p.retired = p.retired[:0]
}

// releaseFree gives the free buffers back to d.
func (p *pool) releaseFree(d *Device) {
	for size, bufs := range p.free {
		for _, b := range bufs {
			d.free(b, size)
			p.reserved -= size
		}
		delete(p.free, size)
	}
}

// release gives every buffer back to d: the autograd device is closing.
func (p *pool) release(d *Device) {
	for size, bufs := range p.free {
		for _, b := range bufs {
			d.free(b, size)
		}
	}
	for _, l := range append(p.lent, p.retired...) {
		d.free(l.buf, l.size)
	}
	for b, size := range p.parked {
		d.free(b, size)
	}
	p.free, p.lent, p.retired, p.pinned, p.parked = nil, nil, nil, nil, nil
}

// pin reserves bufs for a captured program: a buffer among them that is
// free, or is freed later (its tensor dead), is parked instead of lent
// again, until unpin. A buffer still lent stays with its tensor (the
// program reads and writes it in place: parameters, optimiser state,
// outputs).
func (p *pool) pin(bufs []*wgpu.Buffer) {
	if p.pinned == nil {
		p.pinned, p.parked = map[*wgpu.Buffer]int{}, map[*wgpu.Buffer]uint64{}
	}
	for _, b := range bufs {
		p.pinned[b]++
	}
	for size, free := range p.free {
		kept := free[:0]
		for _, b := range free {
			if p.pinned[b] > 0 {
				p.parked[b] = size
				continue
			}
			kept = append(kept, b)
		}
		clear(free[len(kept):])
		p.free[size] = kept
	}
}

// unpin undoes pin: the parked buffers no program uses go back to free.
func (p *pool) unpin(bufs []*wgpu.Buffer) {
	if p.pinned == nil {
		return // released with the device
	}
	for _, b := range bufs {
		if p.pinned[b]--; p.pinned[b] > 0 {
			continue
		}
		delete(p.pinned, b)
		if size, ok := p.parked[b]; ok {
			delete(p.parked, b)
			p.free[size] = append(p.free[size], b)
		}
	}
}
