package browsertest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// RequireBrowserEnv turns a missing browser from a skipped test into a
// failed one; CI sets it (.ci/run), as DLCA_REQUIRE_GPU for the GPU.
const RequireBrowserEnv = "DLCA_REQUIRE_BROWSER"

// browser is the one headless Chromium the tests share: started by the
// first test that needs it and stopped by Close when the tests end. It
// is driven over a pipe (--remote-debugging-pipe, chromedp's default), so
// it opens no port at all, and it loads pages from file:// only.
var browser struct {
	once   sync.Once
	ctx    context.Context
	cancel context.CancelFunc
	err    error
}

// findBrowser returns the path of a Chromium executable.
func findBrowser() (string, error) {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errNoBrowser
}

// errNoBrowser says that no browser is installed; any other failure to
// start one fails the tests whatever DLCA_REQUIRE_BROWSER says.
var errNoBrowser = errors.New("browsertest: no Chromium found (install the Debian package chromium: bash scripts/deps)")

// Browser returns the shared browser's context, skipping the test
// without a browser (or failing it when DLCA_REQUIRE_BROWSER=1).
func Browser(t testing.TB) context.Context {
	t.Helper()
	browser.once.Do(func() {
		path, err := findBrowser()
		if err != nil {
			browser.err = err
			return
		}
		opts := append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.ExecPath(path),
			chromedp.NoSandbox, // tests may run as root
			chromedp.Flag("allow-file-access-from-files", true),
			// Chromium on Linux offers WebGPU only with this flag; headless,
			// with no GPU, its adapter is Dawn on SwiftShader, on the CPU
			// (web/webgpu_test.go).
			chromedp.Flag("enable-unsafe-webgpu", true),
			chromedp.WindowSize(1024, 900),
		)
		actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancelCtx := chromedp.NewContext(actx)
		if err := chromedp.Do(ctx); err != nil { // starts the browser
			cancelCtx()
			cancelAlloc()
			browser.err = fmt.Errorf("browsertest: cannot start %s: %w", path, err)
			return
		}
		browser.ctx, browser.cancel = ctx, func() { cancelCtx(); cancelAlloc() }
	})
	if browser.err != nil {
		if os.Getenv(RequireBrowserEnv) == "1" || !errors.Is(browser.err, errNoBrowser) {
			t.Fatalf("no browser for the page tests (%s=1 requires one): %v", RequireBrowserEnv, browser.err)
		}
		t.Skipf("skipping browser test: %v (set %s=1 to make this a failure)", browser.err, RequireBrowserEnv)
	}
	return browser.ctx
}

// Close stops the shared browser, if one was started: call it from
// TestMain once the tests have run.
func Close() {
	if browser.cancel != nil {
		browser.cancel()
	}
}

// Open writes a page to a file and opens it from file:// in a new tab
// of the shared browser, waiting for the element with id visible. The tab
// closes when the test ends, and the test fails if the page logged an
// error or a warning, or threw.
func Open(t testing.TB, write func(io.Writer) error, visible string) context.Context {
	t.Helper()
	bctx := Browser(t)
	path := filepath.Join(t.TempDir(), "page.html")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := write(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := chromedp.NewContext(bctx)
	// Subscribe before loading, so that errors while loading count. At the
	// end a sentinel goes down each stream, so that every event before it
	// has been read when the test looks.
	problems := make(chan string, 100)
	var readers sync.WaitGroup
	const sentinel = "dlca-test-end"
	readers.Add(2)
	go func() {
		defer readers.Done()
		for ev, err := range chromedp.Events(ctx, runtime.ConsoleAPICalled) {
			if err != nil {
				return
			}
			var args []string
			for _, a := range ev.Args {
				args = append(args, string(a.Value)+a.Description)
			}
			text := strings.Join(args, " ")
			if strings.Contains(text, sentinel) {
				return
			}
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
				problems <- fmt.Sprintf("console.%s: %s", ev.Type, text)
			}
		}
	}()
	go func() {
		defer readers.Done()
		for ev, err := range chromedp.Events(ctx, runtime.ExceptionThrown) {
			if err != nil {
				return
			}
			text := (&chromedp.ExceptionError{ExceptionDetails: ev.ExceptionDetails}).Error()
			if strings.Contains(text, sentinel) {
				return
			}
			problems <- "exception: " + text
		}
	}()
	t.Cleanup(func() {
		_, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](`console.info("`+sentinel+`"); setTimeout(() => { throw new Error("`+sentinel+`"); })`))
		done := make(chan struct{})
		go func() { readers.Wait(); close(done) }()
		if err == nil {
			select {
			case <-done:
			// Generous: it only waits when the marker is late, and under
			// load (8 agents on 2 cores) 5 s was once not enough.
			case <-time.After(30 * time.Second):
				t.Error("the page's console: the end marker never arrived")
			}
		}
		cancel()
		<-done
		close(problems)
		for p := range problems {
			t.Errorf("the page's console: %s", p)
		}
	})
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+path), chromedp.WaitVisible(chromedp.ID(visible))); err != nil {
		t.Fatalf("loading the page: %v", err)
	}
	return ctx
}

// Eval evaluates a JavaScript expression in the page and returns its
// value as T.
func Eval[T any](t testing.TB, ctx context.Context, expr string, opts ...chromedp.EvaluateOption) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, opts...))
	if err != nil {
		t.Fatalf("evaluating %.80s: %v", expr, err)
	}
	return v
}

// RequireWebGPUEnv turns "the browser offers no WebGPU adapter" from a
// skipped test into a failed one; CI sets it (.ci/run), as
// DLCA_REQUIRE_BROWSER for the browser itself.
const RequireWebGPUEnv = "DLCA_REQUIRE_WEBGPU"

// WebGPUAdapter returns a description of the WebGPU adapter that the page
// open in ctx is offered, skipping the test without one (or failing it
// when DLCA_REQUIRE_WEBGPU=1).
func WebGPUAdapter(t testing.TB, ctx context.Context) string {
	t.Helper()
	desc := Eval[string](t, ctx, `(async () => {
		if (!navigator.gpu) return "";
		const a = await navigator.gpu.requestAdapter();
		if (!a) return "";
		return [a.info.vendor, a.info.architecture, a.info.description].filter((s) => s).join(" ") +
			(a.info.isFallbackAdapter ? " (fallback adapter)" : "");
	})()`, chromedp.EvalAwaitPromise)
	if desc == "" {
		if os.Getenv(RequireWebGPUEnv) == "1" {
			t.Fatalf("the browser offers no WebGPU adapter (%s=1 requires one; Chromium needs --enable-unsafe-webgpu)", RequireWebGPUEnv)
		}
		t.Skipf("skipping WebGPU test: the browser offers no adapter (set %s=1 to make this a failure)", RequireWebGPUEnv)
	}
	return desc
}
