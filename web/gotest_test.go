package web

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// goTestPage is a page that runs a Go test binary built for GOOS=js
// GOARCH=wasm (embedded gzipped in base64, as the training page embeds its
// trainer: a file:// page may not load another file) with Go's
// wasm_exec.js. It collects the binary's standard output and error in
// window.goOut and its exit code in window.goExit. The wasm runs on the
// page's main thread, as a page's trainer does: its WebGPU read-backs wait
// on the event loop (gpu/device_js.go).
const goTestPage = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>go test in the browser</title></head>
<body><div id="status">running</div>
<script id="wasm" type="application/octet-stream">%s</script>
<script>%s</script>
<script>
"use strict";
window.goOut = ""; window.goExit = null;
const decoder = new TextDecoder("utf-8");
globalThis.fs.writeSync = (fd, buf) => { window.goOut += decoder.decode(buf); return buf.length; };
(async () => {
  const zipped = Uint8Array.from(atob(document.getElementById("wasm").textContent), (ch) => ch.charCodeAt(0));
  const wasm = await new Response(new Blob([zipped]).stream().pipeThrough(new DecompressionStream("gzip"))).arrayBuffer();
  const go = new Go();
  go.argv = %s; go.env = %s;
  // On exit, the Go runtime's pending timers (the test binary's -test.timeout
  // alarm, say) are still scheduled with setTimeout, and each would resume a
  // program that has exited ("Go program has already exited"): clear them
  // (wasm_exec.js keeps them in _scheduledTimeouts).
  go.exit = (code) => {
    for (const id of go._scheduledTimeouts.values()) clearTimeout(id);
    go._scheduledTimeouts.clear();
    window.goExit = code; document.getElementById("status").textContent = "exit " + code;
  };
  const { instance } = await WebAssembly.instantiate(wasm, go.importObject);
  globalThis.wasm = { instance }; // cogentcore/webgpu reads Go's memory through it
  await go.run(instance);
})().catch((e) => { window.goOut += "cannot run the test binary: " + e + "\n"; window.goExit = 2; });
</script></body></html>`

// runGoTestInBrowser builds the tests of package pkg for GOOS=js
// GOARCH=wasm and runs those matching run and not skip (-test.run,
// -test.skip) in a tab of the shared browser with the environment env,
// returning their output (-test.v) and exit code once they end, failing t
// if they do not end within limit.
func runGoTestInBrowser(t *testing.T, pkg, run, skip string, env map[string]string, limit time.Duration) (string, int) {
	t.Helper()
	dir := t.TempDir()
	wasm := filepath.Join(dir, "test.wasm")
	build := exec.Command("go", "test", "-c", "-o", wasm, pkg)
	build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building %s's tests for js/wasm: %v\n%s", pkg, err, out)
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	wasmExec, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "wasm_exec.js"))
	if err != nil {
		t.Fatal(err)
	}
	argv := fmt.Sprintf(`["test.wasm", "-test.v", "-test.run", %q, "-test.skip", %q]`, run, skip)
	envJS := "{"
	for k, v := range env {
		envJS += fmt.Sprintf("%q: %q, ", k, v)
	}
	envJS += "}"
	bin, err := os.ReadFile(wasm)
	if err != nil {
		t.Fatal(err)
	}
	var zipped bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&zipped, gzip.BestSpeed)
	zw.Write(bin)
	zw.Close()
	ctx := openHTML(t, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, goTestPage, base64.StdEncoding.EncodeToString(zipped.Bytes()), wasmExec, argv, envJS)
		return err
	}, "status")
	deadline := time.Now().Add(limit)
	for eval[any](t, ctx, "window.goExit") == nil {
		if time.Now().After(deadline) {
			t.Fatalf("%s's tests did not end within %v; their output so far:\n%s", pkg, limit, eval[string](t, ctx, "window.goOut"))
		}
		time.Sleep(200 * time.Millisecond)
	}
	return eval[string](t, ctx, "window.goOut"), int(eval[float64](t, ctx, "window.goExit"))
}

// testResult matches the lines of go test -v that give a test's or a
// subtest's result.
var testResult = regexp.MustCompile(`(?m)^\s*--- (PASS|FAIL|SKIP): (\S+) `)

// testResults returns the result (PASS, FAIL or SKIP) of every test and
// subtest in the output of go test -v, by name ("TestX/sub").
func testResults(out string) map[string]string {
	results := map[string]string{}
	for _, m := range testResult.FindAllStringSubmatch(out, -1) {
		results[m[2]] = m[1]
	}
	return results
}
