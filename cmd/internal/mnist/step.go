package mnist

import (
	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/nn"
	"github.com/dlca/dlca/autograd/optim"
)

// stepper takes Train's optimiser steps and reads a step's loss back only
// when asked, so that a device runs step after step without waiting for
// the host between them.
type stepper interface {
	// step takes one step on the examples at indices and, when read is
	// true, returns the loss before it (else 0).
	step(s *Set, indices []int, read bool) (loss float64, err error)
	release()
}

// capturer is a Device that captures the training step once and replays
// it (the GPU: gpu.Capture).
type capturer interface {
	captureStep(m nn.Module, opt optim.Optimizer) stepper
}

// newStepper returns the stepper of dev: the captured step where dev
// captures and eager is false, else the eager one.
func newStepper(m nn.Module, opt optim.Optimizer, dev Device, eager bool) stepper {
	if c, ok := dev.(capturer); ok && !eager {
		return c.captureStep(m, opt)
	}
	return eagerStepper{m, opt, dev}
}

// eagerStepper runs trainStep, building the step's graph anew each time.
type eagerStepper struct {
	m   nn.Module
	opt optim.Optimizer
	dev Device
}

func (e eagerStepper) step(s *Set, indices []int, read bool) (float64, error) {
	if read {
		return trainStep(e.m, e.opt, e.dev, s, indices)
	}
	cpuX, y := s.Input(indices)
	x, err := e.dev.Input(cpuX)
	if err != nil {
		return 0, err
	}
	return 0, takeStep(e.m, e.opt, nn.CrossEntropyLoss(e.m.Forward(x), y, nn.ReduceMean))
}

func (eagerStepper) release() {}

// takeStep backpropagates loss and takes one optimiser step.
func takeStep(m nn.Module, opt optim.Optimizer, loss *autograd.Tensor) error {
	opt.ZeroGrad()
	if err := loss.Backward(); err != nil {
		return err
	}
	return opt.Step()
}

// oneHot returns labels as a [len(labels), Classes] CPU tensor of one-hot
// rows: the targets of a captured step, whose labels must be a tensor (a
// []int would be frozen into the step at capture).
func oneHot(labels []int) *autograd.Tensor {
	t := autograd.Zeros(autograd.Float32, len(labels), Classes)
	d := t.Data32()
	for i, c := range labels {
		d[i*Classes+c] = 1
	}
	return t
}

// capturedLoss is the training loss of a captured step: softmax
// cross-entropy against one-hot targets, the same value as
// CrossEntropyLoss against the labels (PyTorch's cross_entropy with
// probability targets).
func capturedLoss(m nn.Module, x, targets *autograd.Tensor) *autograd.Tensor {
	return nn.CrossEntropyLossProbs(m.Forward(x), targets, nn.ClassOptions{})
}
