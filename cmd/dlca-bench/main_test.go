package main

import (
	"strings"
	"testing"

	"github.com/dlca/dlca/gpu"
)

func TestBenchPrintsBothEngines(t *testing.T) {
	engines := "cpu,gpu"
	if d, err := gpu.Open(); err != nil {
		if gpu.Required() {
			t.Fatalf("no GPU adapter (%s=1): %v", gpu.RequireEnv, err)
		}
		t.Logf("no GPU adapter, timing the CPU engine only: %v", err)
		engines = "cpu"
	} else {
		d.Close()
	}
	var out, errs strings.Builder
	args := []string{"-height", "4", "-width", "4", "-steps", "2", "-iterations", "1", "-warmup", "0", "-engines", engines}
	if code := run(args, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s%s", code, out.String(), errs.String())
	}
	for _, want := range append([]string{"configuration: checkerboard, 4x4 grid, batch 2, 2 steps", "ms/iteration"}, strings.Split(engines, ",")...) {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestBenchRejectsUnknownEngine(t *testing.T) {
	var out, errs strings.Builder
	if code := run([]string{"-engines", "tpu", "-height", "4", "-width", "4", "-steps", "1"}, &out, &errs); code != 1 {
		t.Errorf("exit %d for an unknown engine, want 1", code)
	}
	if !strings.Contains(out.String()+errs.String(), "unknown engine") {
		t.Errorf("no explanation:\n%s%s", out.String(), errs.String())
	}
}

func TestBenchRejectsStrayArgument(t *testing.T) {
	var out, errs strings.Builder
	if code := run([]string{"-engines", "cpu", "extra"}, &out, &errs); code != 2 || !strings.Contains(errs.String(), "flags only") {
		t.Errorf("exit %d, stderr %q for a stray argument; want 2, flags only", code, errs.String())
	}
}
