package gpu

import (
	"errors"
	"math"
	"os"
	"strings"
	"sync"
	"testing"
)

// shared is the one device all tests use: opening one costs about a second.
var shared struct {
	once sync.Once
	d    *Device
	err  error
}

// testDevice returns the shared device. Without an adapter it skips the test,
// or fails it when DLCA_REQUIRE_GPU=1.
func testDevice(t testing.TB) *Device {
	t.Helper()
	shared.once.Do(func() { shared.d, shared.err = Open() })
	if shared.err != nil {
		if Required() || !errors.Is(shared.err, ErrNoAdapter) {
			t.Fatalf("no GPU device (%s=1 requires one): %v", RequireEnv, shared.err)
		}
		t.Skipf("skipping GPU test: %v (set %s=1 to make this a failure)", shared.err, RequireEnv)
	}
	return shared.d
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.d != nil {
		shared.d.Close()
	}
	os.Exit(code)
}

// forEachKernels runs body as a subtest against the CPU twin and the GPU.
func forEachKernels(t *testing.T, body func(t *testing.T, k Kernels)) {
	t.Helper()
	t.Run("cpu", func(t *testing.T) { body(t, CPUTwin{}) })
	t.Run("gpu", func(t *testing.T) { body(t, GPU{D: testDevice(t)}) })
}

// closeTo fails t unless every got[i] is within tol*max(|want[i]|, 1) of
// want[i]: relative for values above 1, absolute below.
func closeTo[A, B float32 | float64](t *testing.T, what string, got []A, want []B, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	worst, at := 0.0, -1
	for i := range got {
		w := float64(want[i])
		e := math.Abs(float64(got[i])-w) / math.Max(math.Abs(w), 1)
		if e > worst || math.IsNaN(e) {
			worst, at = e, i
		}
	}
	if worst > tol || math.IsNaN(worst) {
		t.Errorf("%s: max relative error %.3g > %.1g at %d: got %v, want %v", what, worst, tol, at, got[at], want[at])
	}
}

func TestOpen(t *testing.T) {
	d := testDevice(t)
	if d.Limits.MaxStorageBuffersPerShaderStage < 8 {
		t.Errorf("device grants %d storage buffers per stage, want at least 8", d.Limits.MaxStorageBuffersPerShaderStage)
	}
	if s := d.String(); s == "" {
		t.Error("empty device description")
	} else {
		t.Log("device:", s)
	}
}

func TestErrNoAdapterNamesPackages(t *testing.T) {
	for _, want := range []string{"mesa-vulkan-drivers", "libvulkan1", "-device cpu"} {
		if !strings.Contains(ErrNoAdapter.Error(), want) {
			t.Errorf("ErrNoAdapter does not mention %q: %v", want, ErrNoAdapter)
		}
	}
}

func TestBufferRoundTrip(t *testing.T) {
	d := testDevice(t)
	data := []float32{1, -2.5, 3e-7, 4e9}
	b, err := NewBufferFrom(d, "round trip", data)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	got, err := Read[float32](d, b, len(data))
	if err != nil {
		t.Fatal(err)
	}
	for i := range data {
		if got[i] != data[i] {
			t.Errorf("element %d: read %v, wrote %v", i, got[i], data[i])
		}
	}
}

func TestBufferTooLarge(t *testing.T) {
	d := testDevice(t)
	_, err := d.NewBuffer("huge", int(d.Limits.MaxBufferSize/4)+1)
	if err == nil {
		t.Fatal("allocating past the device's buffer limit succeeded")
	}
	if !strings.Contains(err.Error(), "smaller") {
		t.Errorf("error gives no suggestion: %v", err)
	}
}
