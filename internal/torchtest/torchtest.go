// Package torchtest finds PyTorch for the tests that compare with it: they
// run /usr/bin/python3 (Debian's python3-torch, which scripts/deps installs)
// once per test, and skip where torch is not there unless
// DLCA_REQUIRE_TORCH=1 (set by .ci/run), where they fail instead.
package torchtest

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// Python is the interpreter the comparisons run: Debian's, whose
// python3-torch package is what scripts/deps installs (a python3 earlier on
// PATH, such as a pyenv one, may lack torch).
const Python = "/usr/bin/python3"

// Require skips t when Python has no torch, or fails it when the
// environment says torch must be there (DLCA_REQUIRE_TORCH=1). It looks
// for the module without importing it, which takes seconds.
//
// Under GOOS=js (autograd's tests in WebAssembly, scripts/test) it always
// skips: such a binary cannot start a process, and the native run of the
// same tests makes the comparison.
func Require(t testing.TB) {
	t.Helper()
	if runtime.GOOS == "js" {
		t.Skip("a WebAssembly test binary cannot start python3; the native run compares with torch")
	}
	out, err := exec.Command(Python, "-c", "import importlib.util, sys; sys.exit(importlib.util.find_spec('torch') is None)").CombinedOutput()
	if err == nil {
		return
	}
	msg := Python + " has no torch (install python3-torch, see scripts/deps): " + strings.TrimSpace(string(out)) + " " + err.Error()
	if os.Getenv("DLCA_REQUIRE_TORCH") == "1" {
		t.Fatal(msg + "; DLCA_REQUIRE_TORCH=1 says it must be there")
	}
	t.Skip(msg)
}

// Run runs script (a file path) with args under Python and fails t,
// showing its output, when it exits non-zero.
func Run(t testing.TB, script string, args ...string) string {
	t.Helper()
	out, err := exec.Command(Python, append([]string{script}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", Python, script, err, out)
	}
	return string(out)
}
