package gpu

import (
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/cogentcore/webgpu/wgpu"

	"github.com/dlca/dlca/autograd"
)

// AutogradDevice runs package autograd's tensors and ops on a WebGPU device:
// it implements autograd.Device and the kernel sets autograd asks its
// devices for (autograd.ElementwiseKernels, autograd.ReduceKernels, ...),
// one WGSL kernel per file under shaders/autograd/. Get one with
// OpenAutograd (or Device.Autograd to share a Device) and move tensors to it
// with Tensor.To:
//
//	dev, err := gpu.OpenAutograd()
//	...
//	defer dev.Close()
//	x, err := autograd.New(data, 64, 3).To(dev)
//
// Tensors on it hold float32 alone; a float64 tensor is refused with an
// error (ErrFloat64), as is a tensor larger than the device's largest
// storage binding.
//
// # Recording and memory
//
// Ops record their dispatches into one command encoder, which is submitted
// when a value is read back (Tensor.To(autograd.CPU)), at Sync (an
// optimiser's step ends with it) and every maxPending dispatches. Storage
// comes from a pool of buffers by size: a tensor's buffer returns to the
// pool once the garbage collector finds the tensor unreachable (and the
// work recorded before that has been submitted), so a training loop of
// fixed shapes stops allocating device memory after its first steps
// (Reserved stays flat).
//
// An AutogradDevice, like the tensors on it, is for one goroutine at a time.
type AutogradDevice struct {
	d   *Device
	own bool // opened by OpenAutograd: Close closes d too
	err error

	rec recorder

	mu       sync.Mutex // guards pool, which cleanups reach from their own goroutine
	pool     map[uint64][]*wgpu.Buffer
	retired  []pooled // freed since the last submission: still read by recorded work
	reserved uint64   // bytes of every buffer the pool made
	inUse    uint64   // bytes held by live storage
}

// pooled is a buffer on its way back to the pool.
type pooled struct {
	buf  *wgpu.Buffer
	size uint64
}

// ErrFloat64 is the error of an AutogradDevice asked to hold a float64
// tensor: WebGPU computes in float32.
var ErrFloat64 = errors.New("gpu: float64 tensors cannot live on the GPU, which computes in float32 (Cast to autograd.Float32 first, or keep float64 work on the CPU)")

// ErrClosed is the error of an AutogradDevice after Close, and of every
// tensor left on it.
var ErrClosed = errors.New("gpu: the autograd device is closed and its tensors are gone (move tensors to the CPU with To(autograd.CPU) before closing)")

// OpenAutograd opens the best adapter (see Open) as an autograd device. Close
// releases both.
func OpenAutograd() (*AutogradDevice, error) {
	d, err := Open()
	if err != nil {
		return nil, err
	}
	a := d.Autograd()
	a.own = true
	return a, nil
}

// Autograd returns an autograd device on d, sharing its pipelines with the
// cellular automaton's kernels. Close it before closing d.
func (d *Device) Autograd() *AutogradDevice {
	return &AutogradDevice{d: d, pool: map[uint64][]*wgpu.Buffer{}}
}

// String names the adapter, for messages: "gpu (llvmpipe ..., cpu adapter, vulkan backend)".
func (a *AutogradDevice) String() string { return "gpu (" + describe(a.d.Info) + ")" }

// Device returns the WebGPU device underneath.
func (a *AutogradDevice) Device() *Device { return a.d }

// Err returns the device's first error: ErrClosed after Close, an allocation
// the device could not make, a lost device. Every later op is skipped and
// every read back returns it.
func (a *AutogradDevice) Err() error { return a.err }

// fail keeps err as the device's error unless it already has one.
func (a *AutogradDevice) fail(err error) {
	if a.err == nil {
		a.err = err
	}
}

// Sync submits the recorded work (it does not wait for it) and returns Err.
func (a *AutogradDevice) Sync() error {
	a.submit()
	return a.err
}

// Close releases the pool and, for a device from OpenAutograd, the WebGPU
// device. Tensors left on it read back as ErrClosed. Closing twice does
// nothing.
func (a *AutogradDevice) Close() {
	if errors.Is(a.err, ErrClosed) {
		return
	}
	a.submit()
	a.rec.release()
	a.mu.Lock()
	for _, bufs := range a.pool {
		for _, b := range bufs {
			b.Release()
		}
	}
	for _, p := range a.retired {
		p.buf.Release()
	}
	a.pool, a.retired = nil, nil
	a.mu.Unlock()
	a.err = ErrClosed
	if a.own {
		a.d.Close()
	}
}

// Reserved returns the bytes of device memory the pool has allocated, in use
// or free; InUse those held by live tensors.
func (a *AutogradDevice) Reserved() uint64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.reserved
}

// InUse returns the bytes of device memory held by live tensors.
func (a *AutogradDevice) InUse() uint64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.inUse
}

// storage is a tensor's buffer on an AutogradDevice; buf is nil when the
// allocation failed (the device then holds the error).
type storage struct {
	buf *wgpu.Buffer
	n   int
}

// Len returns the number of elements.
func (s *storage) Len() int { return s.n }

// storageAlign rounds buffer sizes up so that nearby sizes share the pool.
const storageAlign = 256

// Alloc returns storage for n float32 elements from the pool, with undefined
// contents (see autograd.Device).
func (a *AutogradDevice) Alloc(dtype autograd.DType, n int) autograd.Storage {
	s := &storage{n: n}
	if a.err != nil {
		return s
	}
	if dtype != autograd.Float32 {
		a.fail(ErrFloat64)
		return s
	}
	size := (uint64(max(n, 1))*4 + storageAlign - 1) / storageAlign * storageAlign
	if limit := min(a.d.Limits.MaxBufferSize, a.d.Limits.MaxStorageBufferBindingSize); size > limit {
		a.fail(fmt.Errorf("gpu: a tensor of %d elements (%d MiB) is over the device's limit of %d MiB per buffer (use smaller batches or layers, or the CPU)",
			n, size>>20, limit>>20))
		return s
	}
	buf, err := a.take(size)
	if err != nil {
		a.fail(err)
		return s
	}
	s.buf = buf
	runtime.AddCleanup(s, a.release, pooled{buf, size})
	return s
}

// take returns a free buffer of size bytes, making one when the pool has
// none.
func (a *AutogradDevice) take(size uint64) (*wgpu.Buffer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.inUse += size
	if free := a.pool[size]; len(free) > 0 {
		b := free[len(free)-1]
		a.pool[size] = free[:len(free)-1]
		return b, nil
	}
	b, err := a.d.dev.CreateBuffer(&wgpu.BufferDescriptor{Label: "autograd tensor", Size: size, Usage: storageUsage})
	if err != nil {
		a.inUse -= size
		return nil, fmt.Errorf("gpu: allocating a tensor of %d bytes: %v", size, err)
	}
	a.reserved += size
	return b, nil
}

// release returns a dead tensor's buffer towards the pool: work recorded
// before may still read it, so it waits in retired for the next submission.
// The garbage collector's cleanup goroutine calls it.
func (a *AutogradDevice) release(p pooled) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.pool == nil { // closed
		p.buf.Release()
		return
	}
	a.inUse -= p.size
	a.retired = append(a.retired, p)
}

// recycle moves the retired buffers into the pool: called once the work
// that read them is submitted, so that any later use is ordered after it.
func (a *AutogradDevice) recycle() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, p := range a.retired {
		a.pool[p.size] = append(a.pool[p.size], p.buf)
	}
	a.retired = a.retired[:0]
}

// buffer returns the buffer of t, which must live on a, or nil (and keeps
// an error) when it is elsewhere or its allocation failed.
func (a *AutogradDevice) buffer(t *autograd.Tensor) *wgpu.Buffer {
	s, ok := t.Storage().(*storage)
	if !ok || t.Device() != autograd.Device(a) {
		panic(fmt.Sprintf("gpu: a tensor on %v passed to a kernel of %v", t.Device(), a))
	}
	return s.buf
}

// Upload returns new storage holding src's elements (see autograd.Device).
func (a *AutogradDevice) Upload(src *autograd.Tensor) autograd.Storage {
	s := a.Alloc(src.DType(), src.Len()).(*storage)
	if s.buf == nil || src.Len() == 0 {
		return s
	}
	// NOTE: the buffer came from the pool, so no recorded work refers to
	// it: the write, which the queue runs before the next submission,
	// cannot overtake a read of its previous contents.
	if err := a.d.queue.WriteBuffer(s.buf, 0, wgpu.ToBytes(src.Data32())); err != nil {
		a.fail(fmt.Errorf("gpu: uploading a tensor of shape %v: %v", src.Shape(), err))
	}
	return s
}

// Download copies src into dst, a CPU float32 tensor of the same length,
// after submitting the recorded work and waiting for it.
func (a *AutogradDevice) Download(dst *autograd.Tensor, src autograd.Storage) error {
	a.submit()
	if a.err != nil {
		return a.err
	}
	s := src.(*storage)
	if s.n == 0 {
		return nil
	}
	data, err := Read[float32](a.d, &Buffer{Label: "autograd tensor", N: s.n, buf: s.buf}, s.n)
	if err != nil {
		a.fail(err)
		return err
	}
	copy(dst.Data32(), data)
	runtime.KeepAlive(src)
	return nil
}
