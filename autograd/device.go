package autograd

import (
	"errors"
	"fmt"
)

// Device is where a tensor's elements live and where the ops on it run. The
// CPU is the default: its tensors keep their elements in Go slices and every
// op runs the kernels of this package. Another device (the WebGPU device of
// package gpu, from gpu.OpenAutograd) keeps them in Storage it owns and runs
// an op through the kernel sets it implements (ElementwiseKernels,
// ReduceKernels, OptimKernels, ...): an op on tensors of such a device asks
// it for the kernel set of the op's family and panics, naming the op and the
// device, when the device has none.
//
// This package never imports a device's package: a device registers nothing
// and is found through its tensors, so a build without cgo has the CPU alone
// and runs everything there.
//
// # Errors are sticky
//
// Kernels return no errors. A device that fails (out of memory, a shape it
// cannot hold, a lost or closed device) keeps its first error, skips the
// work recorded after it, and returns the error from Err, Sync and every
// Download, hence from Tensor.To, Backward and an optimiser's Step: a failed
// computation never reads back as numbers. This is WebGPU's own model (its
// errors arrive later than the call that caused them), and it keeps every op
// free of an error result, as on the CPU.
//
// # Recording
//
// A device may record work rather than run it at once (the WebGPU device
// appends dispatches to a command encoder): Download and Sync submit what is
// recorded. Kernels run in the order they are called, so an op may read a
// tensor written by an earlier one.
type Device interface {
	// String names the device in messages ("cpu", "gpu (llvmpipe ...)").
	String() string
	// Err returns the device's first error, or nil while it works.
	Err() error
	// Sync submits the recorded work (without waiting for it) and
	// returns Err. Optimisers call it at the end of a step.
	Sync() error
	// Alloc returns storage for n elements of dtype, with undefined
	// contents. When the device cannot hold them it returns storage that
	// is marked failed and keeps the error (see Errors are sticky).
	Alloc(dtype DType, n int) Storage
	// Upload returns new storage holding the elements of src, a CPU tensor.
	Upload(src *Tensor) Storage
	// Download copies the elements of src into dst, a CPU tensor of the
	// same dtype and length, after running the work recorded so far.
	Download(dst *Tensor, src Storage) error
}

// Storage is the handle of a tensor's elements on a device other than the
// CPU. Only its device knows what it holds; views (Reshape, NoGrad, Detach)
// share it. A device frees the memory once no tensor refers to the handle.
type Storage interface {
	// Len returns the number of elements.
	Len() int
}

// CPU is the default device: tensors made by New, Zeros and every op on CPU
// tensors live there, in the slices Data32 and Data64 return.
var CPU Device = cpuDevice{}

type cpuDevice struct{}

func (cpuDevice) String() string { return "cpu" }
func (cpuDevice) Err() error     { return nil }
func (cpuDevice) Sync() error    { return nil }

// ErrDeviceLost is wrapped by a device's errors when the device may have
// been lost (a driver reset, the GPU removed): its work and its tensors are
// gone, so a long run should go on from its last checkpoint, elsewhere if
// need be. Test for it with errors.Is.
var ErrDeviceLost = errors.New("the device may have been lost")

// errCPUStorage is what the CPU says to a caller that treats it as a device
// with Storage: its tensors hold slices instead.
var errCPUStorage = errors.New("autograd: the CPU keeps tensors in slices, not Storage (use New or Zeros)")

func (cpuDevice) Alloc(DType, int) Storage        { panic(errCPUStorage.Error()) }
func (cpuDevice) Upload(*Tensor) Storage          { panic(errCPUStorage.Error()) }
func (cpuDevice) Download(*Tensor, Storage) error { return errCPUStorage }

// Device returns the device t lives on.
func (t *Tensor) Device() Device {
	if t.dev == nil {
		return CPU
	}
	return t.dev
}

// Storage returns the handle of t's elements on its device, or nil for a CPU
// tensor (whose elements are in Data32 or Data64). Devices use it to find a
// tensor's memory in their kernels.
func (t *Tensor) Storage() Storage { return t.store }

// To returns t on dev: t itself when it is already there, else a copy. The
// copy is recorded like an op, so gradients flow back to t's device. Moving
// to or from a device reads or writes all of t and returns the device's
// error if it failed (see Errors are sticky): a float64 tensor on a device
// that holds float32 alone, a device that is closed or lost, a tensor larger
// than the device can hold. Reading a result back is always explicit: a
// tensor on a device has no At, Item or Float64s until it is moved to CPU.
func (t *Tensor) To(dev Device) (*Tensor, error) {
	if dev == nil {
		dev = CPU
	}
	if t.Device() == dev {
		return t, nil
	}
	if t.dev != nil && dev != CPU {
		// Between two devices: through the CPU.
		c, err := t.To(CPU)
		if err != nil {
			return nil, err
		}
		return c.To(dev)
	}
	var out *Tensor
	if dev == CPU {
		out = Zeros(t.dtype, t.shape...)
		if err := t.dev.Download(out, t.store); err != nil {
			return nil, err
		}
	} else {
		out = &Tensor{shape: cloneInts(t.shape), dtype: t.dtype, dev: dev, store: dev.Upload(t)}
		if err := dev.Err(); err != nil {
			return nil, err
		}
	}
	from := t.Device()
	return Record("To", out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		return []*Tensor{mustTo(g, from)}
	}), nil
}

// MoveTo moves a leaf tensor, and its gradient if it has one, to dev in
// place: the *Tensor stays the same, so the modules and optimisers that hold
// it find it on dev (PyTorch's module.to(device), for one parameter).
// Moving a model is moving each of its parameters; nn.To does it. It returns
// the device's error and leaves t where it was when the move fails. MoveTo
// panics on an op result, which belongs to its graph (copy it with To).
func (t *Tensor) MoveTo(dev Device) error {
	if t.node != nil {
		panic(fmt.Sprintf("autograd: MoveTo of an op result (shape %v); use To, or Detach first", t.shape))
	}
	m, err := t.Detach().To(dev)
	if err != nil {
		return err
	}
	var g *Tensor
	if t.grad != nil {
		if g, err = t.grad.Detach().To(dev); err != nil {
			return err
		}
	}
	t.f32, t.f64, t.dev, t.store, t.grad = m.f32, m.f64, m.dev, m.store, g
	return nil
}

// mustTo is To for the gradient rule of To, which has no error result: a
// device failure panics there with the device's error.
func mustTo(t *Tensor, dev Device) *Tensor {
	out, err := t.To(dev)
	if err != nil {
		panic(fmt.Sprintf("autograd: moving a gradient of shape %v from %v to %v: %v", t.shape, t.Device(), dev, err))
	}
	return out
}

// deviceOf returns the device other than the CPU that op's operands live on,
// or nil when they are all CPU tensors (the CPU kernels then run). Operands
// on two different devices make it panic, naming op and both devices; so
// does a CPU operand with a device one, except a 0-D CPU tensor, which is
// moved to the device as a constant (PyTorch's rule for CPU scalars, which
// lets backward rules write scalarLike and Zeros(dtype) on every device).
func deviceOf(op string, ts ...*Tensor) Device {
	var dev Device
	for _, t := range ts {
		if t == nil || t.dev == nil {
			continue
		}
		if dev == nil {
			dev = t.dev
		} else if t.dev != dev {
			panic(fmt.Sprintf("autograd: %s: operands on two devices, %v and %v (move one with To)", op, dev, t.dev))
		}
	}
	if dev == nil {
		return nil
	}
	for _, t := range ts {
		if t != nil && t.dev == nil && len(t.shape) != 0 {
			panic(fmt.Sprintf("autograd: %s: operands on two devices, cpu (shape %v) and %v (move one with To)", op, t.shape, dev))
		}
	}
	return dev
}

// onDevice returns t on dev, where deviceOf allowed it: t itself, or a 0-D
// CPU tensor's value as a constant there. The op records t itself, so a
// gradient for t comes back to the CPU in the backward pass.
func onDevice(dev Device, t *Tensor) *Tensor {
	if t == nil || t.dev == dev {
		return t
	}
	return fullOn(dev, t.dtype, t.At(0), nil)
}

// newOn returns a tensor of the given dtype and shape on dev, with undefined
// contents, for a kernel to write.
func newOn(dev Device, dtype DType, shape []int) *Tensor {
	return &Tensor{shape: cloneInts(shape), dtype: dtype, dev: dev, store: dev.Alloc(dtype, numel(shape))}
}

// fullOn returns a tensor on dev with every element v.
func fullOn(dev Device, dtype DType, v float64, shape []int) *Tensor {
	out := newOn(dev, dtype, shape)
	elementwiseOf("Full", dev).Fill(out, v)
	return out
}

// noKernel panics: dev implements no kernel set for op's family.
func noKernel(op string, dev Device, set string) {
	panic(fmt.Sprintf("autograd: %s has no kernel on %v (the device implements no autograd.%s); move its operands to the CPU with To(autograd.CPU)", op, dev, set))
}

// mustBeCPU panics when t lives on a device: reading its values back is
// explicit (To(CPU)).
func (t *Tensor) mustBeCPU(what string) {
	if t.dev != nil {
		t.notOnCPU(what) // out of line, so that At stays inlined
	}
}

func (t *Tensor) notOnCPU(what string) {
	panic(elementOnDevice{what, t}.Error())
}

// elementOnDevice is the panic of At and SetAt on a tensor that lives on a
// device. It is an error, formatted only when printed, rather than
// notOnCPU's string, so that the check costs At and SetAt little enough to
// stay inlined.
type elementOnDevice struct {
	what string
	t    *Tensor
}

func (e elementOnDevice) Error() string {
	return fmt.Sprintf("autograd: %s of a tensor of shape %v on %v: read it back first with To(autograd.CPU)", e.what, e.t.shape, e.t.dev)
}
