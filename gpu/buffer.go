package gpu

import (
	"fmt"

	"github.com/cogentcore/webgpu/wgpu"
)

// Buffer is a device storage buffer of n 4-byte elements (float32 or uint32).
type Buffer struct {
	Label string
	N     int
	buf   *wgpu.Buffer
}

const storageUsage = wgpu.BufferUsageStorage | wgpu.BufferUsageCopySrc | wgpu.BufferUsageCopyDst

// NewBuffer allocates a zeroed storage buffer of n elements. WebGPU cannot
// bind an empty buffer, so n = 0 allocates one element.
func (d *Device) NewBuffer(label string, n int) (*Buffer, error) {
	if n < 0 {
		panic(fmt.Sprintf("gpu: NewBuffer %q with %d elements", label, n))
	}
	size := uint64(max(n, 1)) * 4
	if size > d.Limits.MaxBufferSize || size > d.Limits.MaxStorageBufferBindingSize {
		return nil, fmt.Errorf("gpu: buffer %q needs %d MiB, over the device's limit of %d MiB per buffer (use a smaller grid, batch or network)",
			label, size>>20, min(d.Limits.MaxBufferSize, d.Limits.MaxStorageBufferBindingSize)>>20)
	}
	b, err := d.dev.CreateBuffer(&wgpu.BufferDescriptor{Label: label, Size: size, Usage: storageUsage})
	if err != nil {
		return nil, fmt.Errorf("gpu: allocating buffer %q (%d bytes): %v", label, size, err)
	}
	return &Buffer{Label: label, N: n, buf: b}, nil
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
	if err := d.queue.WriteBuffer(b.buf, 0, wgpu.ToBytes(data)); err != nil {
		return fmt.Errorf("gpu: writing buffer %q: %v", b.Label, err)
	}
	return nil
}

// Release frees the buffer's device memory.
func (b *Buffer) Release() {
	if b != nil && b.buf != nil {
		b.buf.Release()
		b.buf = nil
	}
}

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
	defer staging.Release()
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
	status := wgpu.BufferMapAsyncStatusUnknown
	if err := staging.MapAsync(wgpu.MapModeRead, 0, size, func(s wgpu.BufferMapAsyncStatus) { status = s }); err != nil {
		return nil, fmt.Errorf("gpu: mapping %q: %v", b.Label, err)
	}
	d.dev.Poll(true, nil)
	if status != wgpu.BufferMapAsyncStatusSuccess {
		return nil, fmt.Errorf("gpu: mapping %q for readback failed: %v (the device may have been lost)", b.Label, status)
	}
	copy(out, wgpu.FromBytes[E](staging.GetMappedRange(0, uint(size))))
	staging.Unmap()
	return out, nil
}
