// Package bench holds the CPU performance benchmarks of the autograd core
// (ops_test.go: per-op GFLOP/s and GB/s; the training steps of cmd/mnist's
// models are timed in cmd/internal/mnist), the regression check that compares a run against a stored
// baseline (benchcmp), and the PyTorch anchor (torch_mnist.py). It has no
// code of its own; see docs/PERFORMANCE.md for the commands.
package bench
