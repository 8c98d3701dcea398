package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/dlca/dlca/internal/idx"
	"github.com/dlca/dlca/internal/mnist"
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
		{[]string{"-dataset", "fashion", "-data", empty}, "does not hold the fashion data set"},
		{[]string{"-dataset", "mnist", "-data", empty}, "does not hold the mnist data set"},
		{[]string{"stray"}, "unexpected argument"},
		{[]string{"-batch", "x"}, "invalid value"},
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

// TestDeviceGPU: until autograd has a GPU device, -device gpu says so and
// what to do instead; once it has one, it trains (or reports a missing
// adapter) like the CPU.
func TestDeviceGPU(t *testing.T) {
	err := run([]string{"-device", "gpu", "-data", fixture(t), "-epochs", "1", "-batch", "8"})
	if errors.Is(err, mnist.ErrGPUNotBuilt) && strings.Contains(err.Error(), "use -device cpu") {
		return
	}
	if err != nil && !strings.Contains(err.Error(), "adapter") {
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
