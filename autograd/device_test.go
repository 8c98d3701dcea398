package autograd

import (
	"errors"
	"strings"
	"testing"
)

// bareDevice is a device with storage and no kernels: enough to check how
// ops treat tensors that are not on the CPU, in a build without a GPU.
type bareDevice struct{ err error }

type bareStorage struct{ data []float32 }

func (s *bareStorage) Len() int { return len(s.data) }

func (*bareDevice) String() string { return "bare" }
func (d *bareDevice) Err() error   { return d.err }
func (d *bareDevice) Sync() error  { return d.err }
func (*bareDevice) Alloc(_ DType, n int) Storage {
	return &bareStorage{make([]float32, n)}
}
func (*bareDevice) Upload(src *Tensor) Storage {
	return &bareStorage{append([]float32(nil), src.f32...)}
}
func (d *bareDevice) Download(dst *Tensor, src Storage) error {
	if d.err != nil {
		return d.err
	}
	copy(dst.f32, src.(*bareStorage).data)
	return nil
}

// panicMessage returns what f panics with, or "" when it returns.
func panicMessage(f func()) (msg string) {
	defer func() {
		switch r := recover().(type) {
		case nil:
		case string:
			msg = r
		case error: // At and SetAt panic with an error (elementOnDevice)
			msg = r.Error()
		default:
			msg = "non-string panic"
		}
	}()
	f()
	return ""
}

func TestToRoundTrip(t *testing.T) {
	dev := &bareDevice{}
	x := New([]float32{1, 2, 3}, 3)
	if y, _ := x.To(CPU); y != x {
		t.Error("To(CPU) of a CPU tensor copied it")
	}
	d, err := x.To(dev)
	if err != nil {
		t.Fatal(err)
	}
	if d.Device() != Device(dev) || d.Data32() != nil || d.Len() != 3 {
		t.Fatalf("on the device: device %v, Data32 %v, Len %d", d.Device(), d.Data32(), d.Len())
	}
	back, err := d.To(CPU)
	if err != nil {
		t.Fatal(err)
	}
	if back.Device() != CPU || back.Float64s()[2] != 3 {
		t.Errorf("back on the CPU: %v", back)
	}
	if v := Reshape(d, 1, 3); v.Device() != Device(dev) || v.Storage() != d.Storage() {
		t.Error("Reshape of a device tensor is not a view on the device")
	}
}

// TestElementOfDeviceTensorPanicsClearly: At and SetAt on a tensor on a
// device panic naming the op, the device and the way out, not with an
// index error.
func TestElementOfDeviceTensorPanicsClearly(t *testing.T) {
	for _, dtype := range []DType{Float32, Float64} {
		d := Empty(&bareDevice{}, dtype, 2, 3)
		for op, f := range map[string]func(){"At": func() { d.At(1) }, "SetAt": func() { d.SetAt(1, 2) }} {
			msg := panicMessage(f)
			for _, want := range []string{"autograd: " + op + " of a tensor of shape [2 3] on bare", "read it back first with To(autograd.CPU)"} {
				if !strings.Contains(msg, want) {
					t.Errorf("%v %s on a device: panic %q, want it to contain %q", dtype, op, msg, want)
				}
			}
		}
	}
}

func TestDeviceErrorsReachTheReader(t *testing.T) {
	lost := errors.New("device lost")
	dev := &bareDevice{}
	d, _ := New([]float32{1}, 1).To(dev)
	dev.err = lost
	if _, err := d.To(CPU); !errors.Is(err, lost) {
		t.Errorf("To(CPU) on a failed device: %v, want its error", err)
	}
	if _, err := New([]float32{1}, 1).To(dev); !errors.Is(err, lost) {
		t.Errorf("To(device) on a failed device: %v, want its error", err)
	}
}

func TestMixedDevicesPanicNamingOpAndDevices(t *testing.T) {
	dev := &bareDevice{}
	d, _ := New([]float32{1, 2, 3}, 3).To(dev)
	msg := panicMessage(func() { Add(d, New([]float32{1, 2, 3}, 3)) })
	for _, want := range []string{"Add", "cpu", "bare", "To"} {
		if !strings.Contains(msg, want) {
			t.Errorf("mixing devices: panic %q does not name %q", msg, want)
		}
	}
}

func TestOpWithoutKernelPanicsNamingIt(t *testing.T) {
	dev := &bareDevice{}
	d, _ := New([]float32{1, 2, 3}, 3).To(dev)
	for name, op := range map[string]func(){
		"Exp":     func() { Exp(d) },
		"Sum":     func() { Sum(d, false) },
		"Softmax": func() { Softmax(d, 0) },
		"ArgMax":  func() { ArgMax(d, 0) },
	} {
		msg := panicMessage(op)
		if !strings.Contains(msg, name) || !strings.Contains(msg, "bare") || !strings.Contains(msg, "To(autograd.CPU)") {
			t.Errorf("%s on a device without kernels: panic %q", name, msg)
		}
	}
	for name, read := range map[string]func(){
		"Item":     func() { _ = d.Item() },
		"Float64s": func() { d.Float64s() },
		"HasNaN":   func() { d.HasNaN() },
	} {
		if msg := panicMessage(read); !strings.Contains(msg, name) || !strings.Contains(msg, "To(autograd.CPU)") {
			t.Errorf("%s of a device tensor: panic %q, want a message saying to read it back", name, msg)
		}
	}
	if s := d.String(); !strings.Contains(s, "bare") {
		t.Errorf("String of a device tensor: %q, want its device", s)
	}
}

func TestMoveToKeepsTheTensor(t *testing.T) {
	dev := &bareDevice{}
	p := New([]float32{1, 2}, 2).SetRequiresGrad(true)
	p.SetGrad(New([]float32{3, 4}, 2))
	if err := p.MoveTo(dev); err != nil {
		t.Fatal(err)
	}
	if p.Device() != Device(dev) || p.Grad().Device() != Device(dev) || !p.RequiresGrad() {
		t.Fatalf("after MoveTo: on %v, gradient on %v, requires grad %v", p.Device(), p.Grad().Device(), p.RequiresGrad())
	}
	if err := p.MoveTo(CPU); err != nil {
		t.Fatal(err)
	}
	if got := p.Float64s(); got[1] != 2 || p.Grad().Float64s()[1] != 4 {
		t.Errorf("back on the CPU: %v, gradient %v", got, p.Grad())
	}
	dev.err = errors.New("out of memory")
	if err := p.MoveTo(dev); err == nil || p.Device() != CPU {
		t.Errorf("a failed move: error %v, tensor on %v (want an error, and the tensor left on the CPU)", err, p.Device())
	}
	if msg := panicMessage(func() { Mul(p, p).MoveTo(CPU) }); !strings.Contains(msg, "MoveTo") {
		t.Errorf("MoveTo of an op result: panic %q", msg)
	}
}

// TestUnaryWithoutKernelNamesItself: an elementwise op that is not one of
// UnaryOps and has no composition for devices panics on a device naming
// itself and the device, rather than reaching a kernel that lacks it.
func TestUnaryWithoutKernelNamesItself(t *testing.T) {
	x, err := New([]float32{1, -2}, 2).To(&elementwiseDevice{})
	if err != nil {
		t.Fatal(err)
	}
	msg := panicMessage(func() { unaryOp{"Bogus", func(v float64) float64 { return v }, nil}.apply(x) })
	if !strings.Contains(msg, "Bogus has no kernel on bare (it is not one of UnaryOps)") || !strings.Contains(msg, "To(autograd.CPU)") {
		t.Fatalf("panic %q, want it to name the op and the device and say to move to the CPU", msg)
	}
}

// elementwiseDevice is a bareDevice with elementwise kernels that must not
// be reached.
type elementwiseDevice struct{ bareDevice }

func (*elementwiseDevice) Fill(*Tensor, float64)                      { panic("kernel reached") }
func (*elementwiseDevice) Strided(_, _ *Tensor, _ []int)              { panic("kernel reached") }
func (*elementwiseDevice) Unary(string, *Tensor, *Tensor, ...float64) { panic("kernel reached") }
func (*elementwiseDevice) Binary(string, *Tensor, *Tensor, *Tensor)   { panic("kernel reached") }
func (*elementwiseDevice) Where(_, _, _, _ *Tensor)                   { panic("kernel reached") }
