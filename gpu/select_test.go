package gpu_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/gpu"
)

func TestSelectEngine(t *testing.T) {
	s, _, _ := checkerboard(t, 4, 4, 1, 0)
	gpu.TestDevice(t) // skips (or fails) without an adapter
	for _, c := range []struct {
		device, prefix string
	}{{"cpu", "cpu"}, {"gpu", "gpu: "}} {
		e, name, err := gpu.SelectEngine(c.device, s, nil)
		if err != nil {
			t.Fatalf("-device %s: %v", c.device, err)
		}
		if !strings.HasPrefix(name, c.prefix) {
			t.Errorf("-device %s chose %q", c.device, name)
		}
		if _, isCPU := e.(*bptt.CPUEngine); isCPU != (c.device == "cpu") {
			t.Errorf("-device %s gave a %T", c.device, e)
		}
		e.Close()
	}
	var log strings.Builder
	e, name, err := gpu.SelectEngine("auto", s, &log)
	if err != nil {
		t.Fatal(err)
	}
	e.Close()
	t.Logf("-device auto chose %s; %s", name, log.String())
	if _, _, err := gpu.SelectEngine("tpu", s, nil); err == nil || !strings.Contains(err.Error(), gpu.Devices) {
		t.Errorf("-device tpu: got %v, want an error listing %s", err, gpu.Devices)
	}
}

// SelectEngine turns a -device flag into an engine; "cpu" never needs an
// adapter.
func ExampleSelectEngine() {
	m, err := dlca.New(dlca.Config{
		Height: 4, Width: 4, Channels: 2, Kernels: 2,
		KernelLayers: []int{9, 8, 4, 2}, UpdateLayers: []int{8, 4, 2},
		PassThrough: dlca.DefaultPassThrough, FireRate: dlca.DefaultFireRate,
	}, autograd.Float32)
	if err != nil {
		panic(err)
	}
	setup := bptt.Setup{Model: m, Batch: 1, Steps: 3, LossChannels: []int{0}, Optimizer: bptt.PaperOptimizer(0.05)}
	eng, chosen, err := gpu.SelectEngine("cpu", setup, nil)
	if err != nil {
		panic(err)
	}
	defer eng.Close()
	fmt.Println(chosen)
	// Output: cpu
}
