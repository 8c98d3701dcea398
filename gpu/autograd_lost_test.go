package gpu

import (
	"errors"
	"strings"
	"testing"

	"github.com/dlca/dlca/autograd"
)

// TestAutogradLostDevice loses the device under an autograd device (an
// injected readback failure, LoseDevice: lavapipe's device is never lost)
// and checks issue #13's promise: an error that names the buffer and says
// the device may have been lost, kept as the device's error; later ops
// skipped; every later read back, Backward, Sync and upload returning that
// error rather than numbers; no panic; Close still works. Only the first
// readback fails, so a later error can only be the one the device kept.
func TestAutogradLostDevice(t *testing.T) {
	a := newAutograd(t)
	x, err := autograd.New([]float32{1, 2, 3}, 3).To(a)
	if err != nil {
		t.Fatal(err)
	}
	y := autograd.Exp(x)
	LoseDevice(t, 1)
	got, lost := y.To(autograd.CPU)
	if lost == nil {
		t.Fatalf("reading back from a lost device returned %v and no error", got.Data32())
	}
	for _, want := range []string{`"autograd tensor"`, "device-lost", "the device may have been lost"} {
		if !strings.Contains(lost.Error(), want) {
			t.Errorf("the lost device's error %q does not say %q", lost, want)
		}
	}
	if err := a.Err(); err != lost {
		t.Errorf("Err after the failed read back: %v, want the read's error %v", err, lost)
	}

	before, _ := a.Counts()
	z := autograd.Add(autograd.Mul(y, x), x)
	if after, _ := a.Counts(); after != before {
		t.Errorf("ops after the loss recorded %d dispatches, want none", after-before)
	}
	for what, v := range map[string]*autograd.Tensor{"the tensor that failed": y, "its input": x, "a later op": z} {
		if got, err := v.To(autograd.CPU); err != lost {
			t.Errorf("reading back %s: %v, error %v; want the lost device's error", what, values(got), err)
		}
	}
	w := x.Detach().SetRequiresGrad(true)
	if err := autograd.Sum(autograd.Square(w), false).Backward(); err != lost {
		t.Errorf("Backward after the loss: %v, want the lost device's error", err)
	}
	if err := a.Sync(); err != lost {
		t.Errorf("Sync after the loss: %v, want the lost device's error", err)
	}
	if moved, err := autograd.New([]float32{4}, 1).To(a); err != lost {
		t.Errorf("moving a tensor to the lost device: %v, error %v; want the lost device's error", moved, err)
	}

	a.Close()
	a.Close()
	if _, err := y.To(autograd.CPU); !errors.Is(err, ErrClosed) {
		t.Errorf("reading back after Close: %v, want ErrClosed", err)
	}
}

// values returns t's values for a message, or nil for no tensor.
func values(t *autograd.Tensor) []float32 {
	if t == nil {
		return nil
	}
	return t.Data32()
}
