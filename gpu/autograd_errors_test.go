package gpu

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/dlca/dlca/autograd"
)

// Bad input to the autograd device: errors that say what went wrong, never
// a crash or numbers read back from a failed computation.

func TestAutogradFloat64IsRefused(t *testing.T) {
	a := newAutograd(t)
	_, err := autograd.New64([]float64{1, 2}, 2).To(a)
	if !errors.Is(err, ErrFloat64) || !strings.Contains(err.Error(), "Cast") {
		t.Errorf("float64 tensor to the GPU: %v, want ErrFloat64 saying to Cast", err)
	}
}

func TestAutogradCastToFloat64FailsOnRead(t *testing.T) {
	a := newAutograd(t)
	x, err := autograd.New([]float32{1, 2}, 2).To(a)
	if err != nil {
		t.Fatal(err)
	}
	y := autograd.Cast(x, autograd.Float64) // recorded as the device's error
	if _, err := y.To(autograd.CPU); !errors.Is(err, ErrFloat64) {
		t.Errorf("reading a float64 cast back: %v, want ErrFloat64", err)
	}
}

func TestAutogradTooLargeIsAnError(t *testing.T) {
	a := newAutograd(t)
	x, err := autograd.New([]float32{1}, 1, 1).To(a)
	if err != nil {
		t.Fatal(err)
	}
	limit := min(a.Device().Limits.MaxBufferSize, a.Device().Limits.MaxStorageBufferBindingSize)
	rows := int(limit/4/1024) + 1
	big := autograd.Expand(x, rows, 1024) // one element more than a buffer holds
	sum := autograd.Sum(big, false)       // skipped: the device has failed
	_, err = sum.To(autograd.CPU)
	if err == nil || !strings.Contains(err.Error(), "over the device's limit") {
		t.Fatalf("a tensor larger than the device holds: %v, want an error naming the limit", err)
	}
	if !errors.Is(a.Sync(), err) && a.Sync().Error() != err.Error() {
		t.Errorf("Sync after the failure: %v, want the same error", a.Sync())
	}
}

func TestAutogradClosedDevice(t *testing.T) {
	a := testDevice(t).Autograd()
	x, err := autograd.New([]float32{1, 2, 3}, 3).To(a)
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	a.Close() // twice is harmless
	y := autograd.Exp(x)
	if _, err := y.To(autograd.CPU); !errors.Is(err, ErrClosed) {
		t.Errorf("reading an op on a closed device: %v, want ErrClosed", err)
	}
	if _, err := x.To(autograd.CPU); !errors.Is(err, ErrClosed) {
		t.Errorf("reading a tensor of a closed device: %v, want ErrClosed", err)
	}
	if _, err := autograd.New([]float32{1}, 1).To(a); !errors.Is(err, ErrClosed) {
		t.Errorf("moving to a closed device: %v, want ErrClosed", err)
	}
	x.SetRequiresGrad(false)
	z := autograd.Sum(autograd.Square(x.Detach().SetRequiresGrad(true)), false)
	if err := z.Backward(); !errors.Is(err, ErrClosed) {
		t.Errorf("Backward on a closed device: %v, want ErrClosed", err)
	}
}

func TestAutogradMixedDevicesPanic(t *testing.T) {
	a := testAutograd(t)
	x, err := autograd.New([]float32{1, 2, 3}, 3).To(a)
	if err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			msg, _ := recover().(string)
			for _, want := range []string{"Mul", "cpu", "gpu (", "To"} {
				if !strings.Contains(msg, want) {
					t.Errorf("mixing devices: panic %q does not name %q", msg, want)
				}
			}
		}()
		autograd.Mul(x, autograd.New([]float32{1, 2, 3}, 3))
	}()
	// A 0-D CPU tensor is a constant on any device, as in PyTorch.
	y := toCPU(t, autograd.Mul(x, autograd.Scalar(2)))
	if got := y.Float64s(); got[2] != 6 {
		t.Errorf("GPU tensor times a CPU scalar: %v", got)
	}
}

// TestAutogradElementOnGPUPanicsClearly: At and SetAt on a tensor on the GPU
// panic naming the op and the adapter and saying to read the tensor back,
// not with an index error.
func TestAutogradElementOnGPUPanicsClearly(t *testing.T) {
	x, err := autograd.New([]float32{1, 2, 3}, 3).To(testAutograd(t))
	if err != nil {
		t.Fatal(err)
	}
	for op, f := range map[string]func(){"At": func() { x.At(1) }, "SetAt": func() { x.SetAt(1, 5) }} {
		func() {
			defer func() {
				msg := fmt.Sprint(recover())
				for _, want := range []string{op + " of a tensor of shape [3] on gpu (", "To(autograd.CPU)"} {
					if !strings.Contains(msg, want) {
						t.Errorf("%s on the GPU: panic %q does not contain %q", op, msg, want)
					}
				}
			}()
			f()
		}()
	}
}

// TestAutogradCPUScalarGetsItsGradient checks that a 0-D CPU tensor that
// requires a gradient, used in an op on the GPU, gets it back on the CPU.
func TestAutogradCPUScalarGetsItsGradient(t *testing.T) {
	a := testAutograd(t)
	x, err := autograd.New([]float32{1, 2, 3}, 3).To(a)
	if err != nil {
		t.Fatal(err)
	}
	s := autograd.Scalar(2).SetRequiresGrad(true)
	loss := autograd.Sum(autograd.Mul(x, s), false)
	if err := loss.Backward(); err != nil {
		t.Fatal(err)
	}
	if g := s.Grad(); g == nil || g.Device() != autograd.CPU || g.Item() != 6 {
		t.Errorf("gradient of the CPU scalar: %v, want 6 on the CPU", g)
	}
}

// TestAutogradDeviceClosedUnderneath closes the Device under an autograd
// device that shares it: the autograd device reports ErrClosed instead of
// touching released objects.
func TestAutogradDeviceClosedUnderneath(t *testing.T) {
	testDevice(t) // skips without an adapter
	d, err := Open()
	if err != nil {
		t.Fatal(err)
	}
	a := d.Autograd()
	x, err := autograd.New([]float32{1, 2, 3}, 3).To(a)
	if err != nil {
		t.Fatal(err)
	}
	y := autograd.Exp(x) // recorded, not submitted
	d.Close()
	z := autograd.Add(y, x)
	if _, err := z.To(autograd.CPU); !errors.Is(err, ErrClosed) {
		t.Errorf("reading back after the Device was closed: %v, want ErrClosed", err)
	}
	if err := a.Sync(); !errors.Is(err, ErrClosed) {
		t.Errorf("Sync after the Device was closed: %v, want ErrClosed", err)
	}
	a.Close()
}
