package main

import (
	"fmt"
	"math/rand/v2"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/nn"
	"github.com/dlca/dlca/autograd/optim"
	"github.com/dlca/dlca/cmd/internal/mnist"
	"github.com/dlca/dlca/gpu"
)

// mlpCapturedBenches returns the MLP step of the mlp row (the same weights,
// batch and labels) captured on the GPU (gpu.Capture) and replayed, with
// and without fusion: GPU rows only. Each call replays the step, writing
// the batch and its one-hot labels into the step's inputs, and reads the
// loss back, as the eager row's call does.
func mlpCapturedBenches(x *autograd.Tensor, labels []int, seed uint64) []opBench {
	targets := autograd.Zeros(autograd.Float32, len(labels), mnist.Classes)
	for i, c := range labels {
		targets.Data32()[i*mnist.Classes+c] = 1
	}
	var out []opBench
	for _, fused := range []bool{false, true} {
		name := fmt.Sprintf("mlp step %d, captured", mlpBatch)
		if fused {
			name += "+fused"
		}
		out = append(out, opBench{
			name:  name,
			flops: 3 * 2 * mlpBatch * (784*128 + 128*10),
			gpu: func(d *gpu.Device) (gpuRun, error) {
				return mlpCaptured(d.Autograd(), x, targets, seed, fused)
			},
		})
	}
	return out
}

// mlpCaptured captures cmd/mnist's MLP step on a and returns it as a
// gpuRun, with its counts measured over one call.
func mlpCaptured(a *gpu.AutogradDevice, x, targets *autograd.Tensor, seed uint64, fused bool) (gpuRun, error) {
	m := mnist.NewMLP(autograd.Float32, rand.New(rand.NewPCG(seed, 3)))
	if err := nn.To(m, a); err != nil {
		a.Close()
		return gpuRun{}, err
	}
	opt := optim.NewAdam(m.Parameters(), optim.DefaultAdam())
	fn := func(in []*autograd.Tensor) ([]*autograd.Tensor, error) {
		opt.ZeroGrad()
		loss := nn.CrossEntropyLossProbs(m.Forward(in[0]), in[1], nn.ClassOptions{})
		if err := loss.Backward(); err != nil {
			return nil, err
		}
		return []*autograd.Tensor{loss}, opt.Step()
	}
	capture := gpu.CaptureUnfused
	if fused {
		capture = gpu.Capture
	}
	step := capture(a, fn)
	release := func() { step.Release(); a.Close() }
	call := func() error {
		out, err := step.Run(x, targets)
		if err == nil {
			_, err = out[0].To(autograd.CPU)
		}
		return err
	}
	for range 2 { // a warm-up, then the capture
		if err := call(); err != nil {
			release()
			return gpuRun{}, err
		}
	}
	d0, s0 := a.Counts()
	r0 := a.ReadBacks()
	w0, b0, _ := a.Uploaded()
	if err := call(); err != nil {
		release()
		return gpuRun{}, err
	}
	d1, s1 := a.Counts()
	w1, b1, _ := a.Uploaded()
	note := fmt.Sprintf("per step: %d read-back (the loss), %d uploads of %d bytes (the batch and its one-hot labels)", a.ReadBacks()-r0, w1-w0, b1-b0)
	return gpuRun{call: call, dispatches: d1 - d0, submissions: s1 - s0, release: release, note: note}, nil
}
