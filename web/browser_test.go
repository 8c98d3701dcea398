package web

import (
	"context"
	"io"
	"os"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/dlca/dlca/internal/browsertest"
)

// The page tests drive headless Chromium through internal/browsertest;
// these are its helpers under the names web's tests use.

// RequireBrowserEnv turns a missing browser from a skipped test into a
// failed one; CI sets it (.ci/run), as DLCA_REQUIRE_GPU for the GPU.
const RequireBrowserEnv = browsertest.RequireBrowserEnv

func TestMain(m *testing.M) {
	code := m.Run()
	browsertest.Close()
	os.Exit(code)
}

// testBrowser returns the shared browser's context (browsertest.Browser).
func testBrowser(t testing.TB) context.Context {
	t.Helper()
	return browsertest.Browser(t)
}

// openPage writes p to a file and opens it (see openHTML).
func openPage(t testing.TB, p *Page) context.Context {
	t.Helper()
	return openHTML(t, func(w io.Writer) error { return Write(w, p) }, "grid")
}

// openHTML opens the page write writes in a new tab (browsertest.Open):
// the test fails if the page logs an error or a warning, or throws.
func openHTML(t testing.TB, write func(io.Writer) error, visible string) context.Context {
	t.Helper()
	return browsertest.Open(t, write, visible)
}

// eval evaluates a JavaScript expression in the page and returns its
// value as T.
func eval[T any](t testing.TB, ctx context.Context, expr string, opts ...chromedp.EvaluateOption) T {
	t.Helper()
	return browsertest.Eval[T](t, ctx, expr, opts...)
}

// webgpuAdapter describes the WebGPU adapter the page in ctx is offered,
// skipping the test without one (browsertest.WebGPUAdapter).
func webgpuAdapter(t testing.TB, ctx context.Context) string {
	t.Helper()
	return browsertest.WebGPUAdapter(t, ctx)
}
