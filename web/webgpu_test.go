package web

import (
	"io"
	"regexp"
	"strings"
	"testing"
	"time"
)

// gpuTestsInBrowser are the tests of package gpu that run in the browser:
// the autograd device's op parity tests and the automaton's kernels and
// engine against their CPU twins (the tests that read files, write them or
// start processes are not among them: a tab has no file system).
var gpuTestsInBrowser = []string{
	"TestOpen", "TestBufferRoundTrip",
	"TestUnaryParity", "TestBinaryParity", "TestReduceParity", "TestSoftmaxParity", "TestArgReduceParity",
	"TestSpecialValuesParity", "TestStridedParity", "TestSecondOrderParity",
	"TestEngineMatchesCPU",
}

// blankPage is a page with nothing on it but an element "blank".
func blankPage(w io.Writer) error {
	_, err := io.WriteString(w, `<!DOCTYPE html><html><head><meta charset="utf-8"><title>blank</title></head><body><div id="blank">blank</div></body></html>`)
	return err
}

// TestGPUParityInChromium runs package gpu's parity tests, compiled to
// WebAssembly, in headless Chromium on its WebGPU: Dawn, with its own WGSL
// compiler (Tint), on SwiftShader here, against the same CPU results and
// with the same tolerances as on wgpu-native with lavapipe. A second WebGPU
// implementation catches what one driver forgives.
func TestGPUParityInChromium(t *testing.T) {
	adapter := webgpuAdapter(t, openHTML(t, blankPage, "blank"))
	t.Logf("the browser's WebGPU adapter: %s", adapter)
	run := "^(" + strings.Join(gpuTestsInBrowser, "|") + ")$"
	start := time.Now()
	out := runGoTestInBrowser(t, "github.com/dlca/dlca/gpu", run, map[string]string{"DLCA_REQUIRE_GPU": "1"}, 4*time.Minute)
	t.Logf("package gpu's %d tests in the browser: %v", len(gpuTestsInBrowser), time.Since(start).Round(time.Millisecond))
	for _, name := range gpuTestsInBrowser {
		if !regexp.MustCompile(`(?m)^--- PASS: ` + name + ` `).MatchString(out) {
			t.Errorf("%s did not pass in the browser", name)
		}
	}
	if strings.Contains(out, "--- SKIP") {
		t.Errorf("tests skipped in the browser")
	}
	if t.Failed() || testing.Verbose() {
		t.Logf("the output:\n%s", out)
	}
}
