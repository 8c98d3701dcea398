package gpu

import (
	"fmt"

	"github.com/cogentcore/webgpu/wgpu"

	"github.com/dlca/dlca/autograd"
)

// Buffer is a device storage buffer of n 4-byte elements (float32 or uint32).
type Buffer struct {
	Label string
	N     int
	buf   *wgpu.Buffer
	d     *Device // the owner, which accounts for its memory; nil for a view of a pooled tensor's buffer
}

// storageUsage is the usage of every storage buffer: kernels bind it, and
// the host writes, clears and reads it back.
const storageUsage = wgpu.BufferUsageStorage | wgpu.BufferUsageCopySrc | wgpu.BufferUsageCopyDst

// MaxBufferBytes is the largest storage buffer the device can allocate and
// bind: the smaller of its buffer and storage-binding limits.
func (d *Device) MaxBufferBytes() uint64 {
	return min(d.Limits.MaxBufferSize, d.Limits.MaxStorageBufferBindingSize)
}

// checkSize returns an error, ending with hint, when what (a buffer of size
// bytes) is over the device's limit per buffer.
func (d *Device) checkSize(what string, size uint64, hint string) error {
	if limit := d.MaxBufferBytes(); size > limit {
		return fmt.Errorf("gpu: %s needs %s, over the device's limit of %s per buffer (%s)", what, mib(int64(size)), mib(int64(limit)), hint)
	}
	return nil
}

// allocate is the one place storage buffers are made, for the engine
// (NewBuffer) and for autograd tensors (the pool): it checks the size
// against the device's limits, names what was refused, and counts the
// bytes (Allocated).
func (d *Device) allocate(what string, size uint64, hint string) (*wgpu.Buffer, error) {
	if err := d.checkSize(what, size, hint); err != nil {
		return nil, err
	}
	b, err := d.dev.CreateBuffer(&wgpu.BufferDescriptor{Label: what, Size: size, Usage: storageUsage})
	if err != nil {
		return nil, fmt.Errorf("gpu: the device refused %s of %d bytes: %v", what, size, err)
	}
	d.allocated += int64(size)
	return b, nil
}

// free releases a buffer of size bytes from allocate.
func (d *Device) free(b *wgpu.Buffer, size uint64) {
	d.allocated -= int64(size)
	destroy(b)
}

// Allocated returns the bytes of the storage buffers live on the device:
// the engine's buffers and every autograd pool's (in use or free).
func (d *Device) Allocated() int64 { return d.allocated }

// NewBuffer allocates a zeroed storage buffer of n elements. WebGPU cannot
// bind an empty buffer, so n = 0 allocates one element.
func (d *Device) NewBuffer(label string, n int) (*Buffer, error) {
	if n < 0 {
		panic(fmt.Sprintf("gpu: NewBuffer %q with %d elements", label, n))
	}
	b, err := d.allocate(fmt.Sprintf("buffer %q", label), uint64(max(n, 1))*4, "use a smaller grid, batch or network")
	if err != nil {
		return nil, err
	}
	return &Buffer{Label: label, N: n, buf: b, d: d}, nil
}

// NewBufferFrom allocates a storage buffer holding data ([]float32 or []uint32).
func NewBufferFrom[E float32 | uint32](d *Device, label string, data []E) (*Buffer, error) {
	b, err := d.NewBuffer(label, len(data))
	if err != nil {
		return nil, err
	}
	if err := Write(d, b, data); err != nil {
		b.Release()
		return nil, err
	}
	return b, nil
}

// Write copies data into b from its start. It panics if data is longer than b.
func Write[E float32 | uint32](d *Device, b *Buffer, data []E) error {
	if len(data) > b.N {
		panic(fmt.Sprintf("gpu: Write of %d elements into buffer %q of %d", len(data), b.Label, b.N))
	}
	if len(data) == 0 {
		return nil
	}
	if err := d.writeBuffer(b.buf, wgpu.ToBytes(data)); err != nil {
		return fmt.Errorf("gpu: writing buffer %q: %v", b.Label, err)
	}
	return nil
}

// unusedBinding returns a one-element storage buffer to bind where a
// dispatch leaves a kernel's writable binding unused (Adam's running
// maximum without AMSGrad, SGD's momentum without momentum).
//
// NOTE: binding a buffer that another writable binding of the dispatch
// already holds would do as well on wgpu-native, but WebGPU forbids
// writable bindings that alias, and Dawn (Chromium's WebGPU) refuses the
// dispatch.
func (d *Device) unusedBinding() (*Buffer, error) {
	if d.unused == nil {
		var err error
		if d.unused, err = d.NewBuffer("unused binding", 1); err != nil {
			return nil, err
		}
	}
	return d.unused, nil
}

// Release frees the buffer's device memory. A view of a pooled tensor's
// buffer owns nothing: releasing it does nothing.
func (b *Buffer) Release() {
	if b != nil && b.buf != nil && b.d != nil {
		b.d.free(b.buf, uint64(max(b.N, 1))*4)
		b.buf = nil
	}
}

// readFault, when not nil, is asked before each readback whether to fail
// it as a lost device's fail: the map reports
// BufferMapAsyncStatusDeviceLost. It is the tests' way to lose a device
// (LoseDevice in export_test.go; lavapipe's never is); production never
// sets it.
var readFault func() bool

// Read copies the first n elements of b back to the host, waiting for all
// submitted work to finish first.
func Read[E float32 | uint32](d *Device, b *Buffer, n int) ([]E, error) {
	if n > b.N || n < 0 {
		panic(fmt.Sprintf("gpu: Read of %d elements from buffer %q of %d", n, b.Label, b.N))
	}
	out := make([]E, n)
	if n == 0 {
		return out, nil
	}
	size := uint64(n) * 4
	staging, err := d.dev.CreateBuffer(&wgpu.BufferDescriptor{
		Label: b.Label + " readback", Size: size,
		Usage: wgpu.BufferUsageMapRead | wgpu.BufferUsageCopyDst,
	})
	if err != nil {
		return nil, fmt.Errorf("gpu: readback buffer for %q: %v", b.Label, err)
	}
	defer destroy(staging)
	enc, err := d.dev.CreateCommandEncoder(nil)
	if err != nil {
		return nil, fmt.Errorf("gpu: command encoder: %v", err)
	}
	defer enc.Release()
	if err := enc.CopyBufferToBuffer(b.buf, 0, staging, 0, size); err != nil {
		return nil, fmt.Errorf("gpu: copying %q for readback: %v", b.Label, err)
	}
	cmd, err := enc.Finish(nil)
	if err != nil {
		return nil, fmt.Errorf("gpu: finishing readback of %q: %v", b.Label, err)
	}
	defer cmd.Release()
	d.queue.Submit(cmd)
	status, err := d.mapRead(staging, size)
	if err != nil {
		return nil, fmt.Errorf("gpu: mapping %q: %v", b.Label, err)
	}
	if readFault != nil && readFault() {
		status = wgpu.BufferMapAsyncStatusDeviceLost
	}
	if status != wgpu.BufferMapAsyncStatusSuccess {
		return nil, fmt.Errorf("gpu: mapping %q for readback failed: %v (%w)", b.Label, status, autograd.ErrDeviceLost)
	}
	if err := d.asyncError(); err != nil {
		return nil, fmt.Errorf("gpu: reading %q back: %w", b.Label, err)
	}
	copy(out, wgpu.FromBytes[E](staging.GetMappedRange(0, uint(size))))
	staging.Unmap()
	return out, nil
}
