package gputrain

import (
	"strings"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/gpu"
)

// TestSelectEngine: gpu-autograd is this package's engine, on a device it
// owns; gpu the recorded CA engine; cpu the CPU engine; auto the CPU on a
// software adapter; an unknown name an error listing the names.
func TestSelectEngine(t *testing.T) {
	dev := device(t) // skips without an adapter
	s, _ := trained(t, "checkerboard", 4, 4, 0, 0)
	for _, c := range []struct {
		device, desc string
		check        func(bptt.Engine) bool
	}{
		{"gpu-autograd", "(captured autograd step)", func(e bptt.Engine) bool { g, ok := e.(*Engine); return ok && g.ownDevice }},
		{"gpu", "gpu", func(e bptt.Engine) bool { _, ok := e.(*gpu.Engine); return ok }},
		{"cpu", "cpu", func(e bptt.Engine) bool { _, ok := e.(*bptt.CPUEngine); return ok }},
	} {
		e, desc, err := SelectEngine(c.device, s, nil)
		if err != nil {
			t.Fatalf("-device %s: %v", c.device, err)
		}
		if !c.check(e) || !strings.Contains(desc, c.desc) {
			t.Errorf("-device %s: %T described %q", c.device, e, desc)
		}
		if err := e.Close(); err != nil {
			t.Errorf("-device %s: Close: %v", c.device, err)
		}
	}
	if dev.Device().IsSoftware() {
		var log strings.Builder
		e, desc, err := SelectEngine("auto", s, &log)
		if err != nil {
			t.Fatal(err)
		}
		e.Close()
		if _, ok := e.(*bptt.CPUEngine); !ok || desc != "cpu" || !strings.Contains(log.String(), "only a software adapter") {
			t.Errorf("-device auto on a software adapter: %T %q, log %q; want the CPU engine, saying why", e, desc, log.String())
		}
	}
	if _, _, err := SelectEngine("tpu", s, nil); err == nil || !strings.Contains(err.Error(), Devices) {
		t.Errorf("-device tpu: %v; want an error listing %s", err, Devices)
	}
}

// A float64 model trains in float32 on the device and comes back float64,
// with the logits the float32 model's training gives.
func TestFloat64ModelTrainsInFloat32(t *testing.T) {
	dev := device(t)
	s, src := trained(t, "checkerboard", 4, 4, 0, 0)
	s.Steps = 2
	s64 := s
	s64.Model = s.Model.Clone()
	for _, l := range s64.Model.Layers() {
		l.Logits = autograd.Cast(l.Logits, autograd.Float64)
	}
	var models []*dlca.Model
	for _, setup := range []bptt.Setup{s, s64} {
		e, err := New(dev, setup, Options{Eager: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Iterate(batch(src, 1)); err != nil {
			t.Fatal(err)
		}
		m, err := e.Model()
		if err != nil {
			t.Fatal(err)
		}
		e.Close()
		models = append(models, m)
	}
	if got := models[1].DType(); got != autograd.Float64 {
		t.Errorf("a float64 model came back %v", got)
	}
	if d, at := maxRelDiff(models[1], models[0]); d != 0 {
		t.Errorf("float64 model's logits differ from the float32 model's by %.3g (layer %s)", d, at)
	}
	if _, err := New(nil, s, Options{}); err == nil || !strings.Contains(err.Error(), "gpu.OpenAutograd") {
		t.Errorf("New without a device: %v; want an error saying how to open one", err)
	}
}
