//go:build !cgo && !js

package mnist

import (
	"errors"
	"strings"
	"testing"
)

// TestGPUWithoutCgo (run by scripts/test with CGO_ENABLED=0): without cgo,
// -device gpu is refused saying that the GPU is not built in and what to
// do, and the CPU still trains.
func TestGPUWithoutCgo(t *testing.T) {
	_, _, err := NewDevice("gpu")
	if !errors.Is(err, ErrGPUNotBuilt) || !strings.Contains(err.Error(), "CGO_ENABLED=1") {
		t.Fatalf("NewDevice(gpu) without cgo: %v, want ErrGPUNotBuilt saying how to rebuild", err)
	}
	if _, _, err := NewDevice("cpu"); err != nil {
		t.Fatalf("NewDevice(cpu) without cgo: %v", err)
	}
}
