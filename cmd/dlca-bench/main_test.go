package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/dlca/dlca/gpu"
	"github.com/dlca/dlca/internal/memlimit"
)

func TestBenchPrintsBothEngines(t *testing.T) {
	engines := "cpu,gpu,graph"
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
	args := []string{"-height", "4", "-width", "4", "-steps", "2", "-iterations", "1", "-warmup", "0", "-engines", engines,
		"-matmul", "33", "-conv-batch", "1", "-conv-size", "5"}
	if code := run(args, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s%s", code, out.String(), errs.String())
	}
	wants := []string{"configuration: checkerboard, 4x4 grid, batch 2, 2 steps", "ms/iteration", "cpu engine: "}
	if strings.Contains(engines, "gpu") {
		wants = append(wants, " kernel dispatches in 2 submissions per iteration",
			"graph engine: ", " kernel dispatches in 1 submissions, 1 read-backs, 2 uploads of ")
	}
	for _, want := range append(wants, strings.Split(engines, ",")...) {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	// One row per op and engine: name, device, ms, GFLOP/s, and on the
	// GPU the dispatches (1 for the product, 2 for im2col and product, some
	// for the MLP's step) and the submissions (one, at least one).
	for _, op := range []struct{ name, gpu string }{{"matmul 33x33x33", "^1 +1$"}, {"conv2d 1x64x5x5, 64x64x3x3", "^2 +1$"},
		{"mlp step 784-128-10, batch 128", "^[1-9][0-9]+ +[1-9][0-9]*$"}} {
		for _, engine := range strings.Split(strings.TrimSuffix(engines, ",graph"), ",") { // graph has no op rows
			row := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(op.name) + ` +` + engine + ` +[0-9.]+ +[0-9.]+ +(.*)$`).FindStringSubmatch(out.String())
			if row == nil {
				t.Errorf("no %s row for %s:\n%s", engine, op.name, out.String())
			} else if engine == "gpu" && !regexp.MustCompile(op.gpu).MatchString(row[1]) {
				t.Errorf("%s on the GPU: dispatches and submissions %q, want %s", op.name, row[1], op.gpu)
			}
		}
	}
}

func TestBenchRejectsUnknownOp(t *testing.T) {
	var out, errs strings.Builder
	if code := run([]string{"-ops", "fft", "-engines", "cpu"}, &out, &errs); code != 1 || !strings.Contains(errs.String(), `unknown op "fft"`) {
		t.Errorf("exit %d, %s%s for an unknown op; want 1 and a message naming it", code, out.String(), errs.String())
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

// TestBenchRefusesWhatDoesNotFit: sizes whose CPU iteration cannot fit in
// memory are refused before anything is allocated (rather than dying with
// "fatal error: runtime: out of memory"), with a suggestion whose flags
// exist; negative sizes are refused too.
func TestBenchRefusesWhatDoesNotFit(t *testing.T) {
	if _, _, err := memlimit.MemoryLimit(); err != nil {
		t.Skip("no memory limit to compare with:", err)
	}
	var usage strings.Builder
	run([]string{"-h"}, &usage, &usage)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-height", "100000", "-width", "100000"}, "-steps 1 with -height "},
		// Recomputing step by step, the engine keeps only the states
		// (16 KiB each here): it takes 10^8 steps not to fit.
		{[]string{"-steps", "100000000"}, "use -steps "},
		{[]string{"-height", "1000000000", "-width", "1000000000", "-batch", "1000000000"}, "use -batch "},
	} {
		var out, errs strings.Builder
		code := run(append(tc.args, "-engines", "cpu"), &out, &errs)
		msg := errs.String()
		if code != 1 || !strings.Contains(msg, "the CPU engine needs about") || !strings.Contains(msg, tc.want) {
			t.Errorf("%v: exit %d, %s%s; want a refusal suggesting %q", tc.args, code, out.String(), msg, tc.want)
		}
		hint := msg[strings.LastIndex(msg, ";"):]
		for _, f := range regexp.MustCompile(`-[a-z]+`).FindAllString(hint, -1) {
			if !strings.Contains(usage.String(), "  "+f+" ") {
				t.Errorf("%v: the suggestion %q names %s, which dlca-bench does not have", tc.args, hint, f)
			}
		}
	}
	var out, errs strings.Builder
	if code := run([]string{"-height", "-3"}, &out, &errs); code != 2 || !strings.Contains(errs.String(), "must not be negative") {
		t.Errorf("-height -3: exit %d, %s", code, errs.String())
	}
}

// TestHelp: -h and -help print the usage to stdout and exit 0.
func TestHelp(t *testing.T) {
	for _, flag := range []string{"-h", "-help"} {
		var stdout, stderr strings.Builder
		code := run([]string{flag}, &stdout, &stderr)
		if code != 0 || stderr.Len() != 0 || !strings.Contains(stdout.String(), "Usage of dlca-bench") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 0 and the usage on stdout", flag, code, stdout.String(), stderr.String())
		}
	}
}

// TestBenchWithoutAnAdapter: -engines gpu where no adapter is found (the
// Vulkan loader pointed at no driver) exits 1 with a last line that says
// no adapter and names a flag dlca-bench has; before, it said only
// "engine(s) gpu failed".
func TestBenchWithoutAnAdapter(t *testing.T) {
	t.Setenv("VK_ICD_FILENAMES", "/nonexistent/no-driver.json")
	t.Setenv("VK_DRIVER_FILES", "/nonexistent/no-driver.json")
	if d, err := gpu.Open(); err == nil {
		d.Close()
		t.Skip("an adapter is found without a Vulkan driver (another backend): nothing to test here")
	}
	var out, errs strings.Builder
	code := run([]string{"-height", "4", "-width", "4", "-steps", "2", "-iterations", "1", "-warmup", "0", "-engines", "gpu"}, &out, &errs)
	if code != 1 || !strings.Contains(errs.String(), "no WebGPU adapter found") || !strings.Contains(errs.String(), "-engines cpu") || strings.Contains(errs.String(), "-device") {
		t.Fatalf("exit %d, stderr %q; want 1, no adapter, and -engines cpu (not -device)", code, errs.String())
	}
}
