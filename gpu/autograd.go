package gpu

import (
	"errors"
	"fmt"
	"runtime"
	"slices"

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
// comes from a pool of buffers by size (see pool): a tensor's buffer
// returns to it once the garbage collector has found the tensor
// unreachable, so a training loop of fixed shapes stops allocating device
// memory once its pool holds a step's worth and a few MiB (Reserved stays
// flat). Go's collector knows nothing of device memory, so the pool runs it
// itself when it runs out of buffers and enough may be garbage (see take).
//
// An AutogradDevice, like the tensors on it, is for one goroutine at a time.
type AutogradDevice struct {
	d   *Device
	own bool // opened by OpenAutograd: Close closes d too
	err error

	rec   recorder
	pool  pool
	cache indexCache // the index data of gate layers, gathers and scatters

	// uploads and uploaded count the writes into storage buffers (tensors
	// and index data) and their bytes (see Uploaded).
	uploads  int
	uploaded int64

	// readbacks counts the values read back to the host (see ReadBacks).
	readbacks int

	// cap is the step being captured and rep the replay hook being rerun
	// (see capture.go); nil when eager.
	cap *capturing
	rep *replaying

	// gateBackward is SetOneDispatchGateBackward's choice; nil: by adapter.
	gateBackward *bool
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
// cellular automaton's kernels. Close it before closing d; once d is closed
// it reports ErrClosed.
func (d *Device) Autograd() *AutogradDevice {
	return &AutogradDevice{d: d, pool: pool{free: map[uint64][]*wgpu.Buffer{}}}
}

// String names the adapter, for messages: "gpu (llvmpipe ..., cpu adapter, vulkan backend)".
func (a *AutogradDevice) String() string { return "gpu (" + describe(a.d.Info) + ")" }

// Device returns the WebGPU device underneath.
func (a *AutogradDevice) Device() *Device { return a.d }

// Err returns the device's first error: ErrClosed after Close (or after the
// Device under it was closed), an allocation the device could not make, a
// lost device. Every later op is skipped and every read back returns it.
func (a *AutogradDevice) Err() error {
	a.failed()
	return a.err
}

// failed reports whether the device has failed, noticing a Device closed
// under it.
func (a *AutogradDevice) failed() bool {
	if a.err == nil && a.d.dev == nil {
		a.fail(ErrClosed)
	}
	return a.err != nil
}

// fail keeps err as the device's error unless it already has one.
func (a *AutogradDevice) fail(err error) {
	if a.err == nil {
		a.err = err
	}
}

// Sync submits the recorded work (it does not wait for it) and returns Err.
func (a *AutogradDevice) Sync() error {
	a.submit()
	return a.Err()
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
	a.cache = indexCache{} // its buffers are the pool's
	a.pool.release(a.d)
	a.err = ErrClosed
	if a.own {
		a.d.Close()
	}
}

// Counts returns the kernel dispatches the device has recorded and the
// command submissions it has made since it was opened: the difference
// across a training step is that step's work (dlca-bench's mlp row,
// TestDispatchesPerDLCAIteration).
func (a *AutogradDevice) Counts() (dispatches, submissions int) {
	return a.rec.dispatches, a.rec.submissions
}

// ReadBacks returns the values the device has read back to the host since
// it was opened (each Download: Item, To(autograd.CPU), ...).
func (a *AutogradDevice) ReadBacks() int { return a.readbacks }

// Uploaded returns the writes of host data into storage buffers the device
// has made since it was opened (tensors' uploads and the index data of gate
// layers, gathers and scatters; not the kernels' small uniforms), their
// bytes, and the storage buffers its pool has created: across a training
// step, what the step sends to the device (TestDispatchesPerDLCAIteration).
func (a *AutogradDevice) Uploaded() (writes int, bytes int64, created int) {
	return a.uploads, a.uploaded, a.pool.created
}

// write copies data into b (see Write), counting it (see Uploaded).
func write[E float32 | uint32](a *AutogradDevice, b *Buffer, data []E) error {
	a.uploads++
	a.uploaded += int64(len(data)) * 4
	if a.cap != nil && len(data) > 0 {
		a.cap.cur.writes = append(a.cap.cur.writes, hostWrite{b.buf, slices.Clone(wgpu.ToBytes(data))})
	}
	return Write(a.d, b, data)
}

// Reserved returns the bytes of device memory the pool has allocated, in use
// or free.
func (a *AutogradDevice) Reserved() uint64 { return a.pool.reserved }

// InUse returns the bytes of device memory held by tensors that the garbage
// collector has not found dead.
func (a *AutogradDevice) InUse() uint64 {
	a.pool.reclaim(0)
	return a.pool.inUse
}

// storage is a tensor's buffer on an AutogradDevice; buf is nil when the
// allocation failed (the device then holds the error).
type storage struct {
	buf *wgpu.Buffer
	n   int
}

// Len returns the number of elements.
func (s *storage) Len() int { return s.n }

// buffer returns s as a Buffer for the kernels, uploads and reads, a view
// that owns nothing (the pool does).
func (s *storage) buffer() *Buffer { return &Buffer{Label: "autograd tensor", N: s.n, buf: s.buf} }

// storageAlign rounds buffer sizes up so that nearby sizes share the pool.
const storageAlign = 256

// Alloc returns storage for n float32 elements from the pool, with undefined
// contents (see autograd.Device).
func (a *AutogradDevice) Alloc(dtype autograd.DType, n int) autograd.Storage {
	s := &storage{n: n}
	if a.failed() {
		return s
	}
	if dtype != autograd.Float32 {
		a.fail(ErrFloat64)
		return s
	}
	size := (uint64(max(n, 1))*4 + storageAlign - 1) / storageAlign * storageAlign
	if err := a.d.checkSize(fmt.Sprintf("%s of %d elements", tensorWhat, n), size, tensorHint); err != nil {
		a.fail(err)
		return s
	}
	buf, err := a.take(size)
	if err != nil {
		a.fail(err)
		return s
	}
	s.buf = buf
	a.pool.lend(s, size)
	return s
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
	if err := write(a, s.buffer(), src.Data32()); err != nil {
		a.fail(fmt.Errorf("gpu: uploading a tensor of shape %v: %w", src.Shape(), err))
	}
	return s
}

// Download copies src into dst, a CPU float32 tensor of the same length,
// after submitting the recorded work and waiting for it.
func (a *AutogradDevice) Download(dst *autograd.Tensor, src autograd.Storage) error {
	if a.cap != nil {
		a.cap.reads++
		return ErrCaptureReadBack
	}
	a.readbacks++
	a.submit()
	if a.failed() {
		return a.err
	}
	s := src.(*storage)
	if s.n == 0 {
		return nil
	}
	data, err := Read[float32](a.d, s.buffer(), s.n)
	if err != nil {
		a.fail(err)
		return err
	}
	copy(dst.Data32(), data)
	runtime.KeepAlive(src)
	return nil
}
