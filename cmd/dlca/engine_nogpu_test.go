//go:build !cgo

package main

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/experiments"
)

// TestEngineWithoutCgo (run by scripts/test with CGO_ENABLED=0): without
// cgo, -device gpu is refused saying that the GPU is not built in, and
// -device auto and cpu train on the CPU.
func TestEngineWithoutCgo(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	code, _, stderr := runCmd("train", "-experiment", "checkerboard-small", "-iterations", "1", "-out", out, "-device", "gpu")
	if code != 1 || !strings.Contains(stderr, "built without cgo: the GPU is not built in; rebuild with CGO_ENABLED=1") {
		t.Errorf("train -device gpu: exit %d, stderr %q; want exit 1 saying the GPU is not built in", code, stderr)
	}
	e, err := experiments.Get("checkerboard-small")
	if err != nil {
		t.Fatal(err)
	}
	m, err := dlca.New(e.Model, autograd.Float32)
	if err != nil {
		t.Fatal(err)
	}
	for _, device := range []string{"cpu", "auto"} {
		eng, chosen, err := selectEngine(device, e.Setup(m), nil)
		if err != nil || chosen != "cpu" {
			t.Errorf("-device %s: %q, %v; want the CPU engine", device, chosen, err)
			continue
		}
		eng.Close()
	}
	if _, _, err := selectEngine("gpu", e.Setup(m), nil); !errors.Is(err, errNoGPU) {
		t.Errorf("-device gpu: %v, want errNoGPU", err)
	}
}
