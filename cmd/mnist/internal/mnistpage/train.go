package mnistpage

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/nn"
	"github.com/dlca/dlca/autograd/nn/tensorfile"
	"github.com/dlca/dlca/cmd/internal/mnist"
	"github.com/dlca/dlca/internal/idx"
)

// Epoch is what Train reports after each epoch, and before the first
// (epoch 0, no loss yet).
type Epoch struct {
	Epoch, Epochs int
	Loss          float64 // the epoch's mean training loss (mnist.Train's); NaN at epoch 0
	Accuracy      float64 // on the held-out images
	Seconds       float64 // since the training began
}

// Train trains a fresh s.Model (initialised from s.Seed, as mnist -seed)
// on train with dev, as `mnist -subset` does (mnist.Train: Adam, the
// learning rate annealed along a cosine), and measures it on test after
// every epoch. It calls step, if not nil, after every optimiser step, and
// epoch with each epoch's figures and the model as it is then, on the CPU.
// It returns the trained model on the CPU.
func Train(s Settings, train, test *mnist.Set, dev mnist.Device, step func(epoch, step, steps int), epoch func(Epoch, *Model)) (*Model, error) {
	m, err := mnist.NewModel(s.Model, autograd.Float32, rand.New(rand.NewPCG(s.Seed, 0)))
	if err != nil {
		return nil, err
	}
	if m, err = dev.Place(m); err != nil {
		return nil, err
	}
	start := time.Now()
	var last *Model
	// report measures the model after an epoch and hands it on; Train
	// cannot be stopped from its report, so the first error is kept.
	report := func(e int, loss float64) error {
		acc, err := mnist.Accuracy(m, dev, test)
		if err != nil {
			return err
		}
		if last, err = s.onCPU(m); err != nil {
			return err
		}
		epoch(Epoch{Epoch: e, Epochs: s.Epochs, Loss: loss, Accuracy: acc, Seconds: time.Since(start).Seconds()}, last)
		return nil
	}
	if err := report(0, math.NaN()); err != nil {
		return nil, err
	}
	var reportErr error
	cfg := mnist.Config{Epochs: s.Epochs, Batch: s.Batch, LR: s.LR, Seed: s.Seed, Device: dev, Progress: step}
	err = mnist.Train(m, train, cfg, func(e int, loss float64) {
		if reportErr == nil {
			reportErr = report(e, loss)
		}
	})
	if err == nil {
		err = reportErr
	}
	return last, err
}

// Model is a model the page trained, copied to the CPU: the canvas's
// predictions and the download read it while the device trains on.
type Model struct {
	m nn.Module
	s Settings
}

// onCPU returns a copy of m (on any device) on the CPU.
func (s Settings) onCPU(m nn.Module) (*Model, error) {
	sd, err := nn.GetStateDict(m)
	if err != nil {
		return nil, err
	}
	cpu, err := mnist.NewModel(s.Model, autograd.Float32, rand.New(rand.NewPCG(0, 0)))
	if err != nil {
		return nil, err
	}
	if err := nn.LoadStateDict(cpu, sd); err != nil {
		return nil, err
	}
	return &Model{cpu, s}, nil
}

// Predict returns the model's class probabilities (softmax) for one image
// of Rows x Cols pixels, a byte each (0 background, 255 ink), standardised
// as the training images are.
func (m *Model) Predict(pixels []byte) ([]float64, error) {
	if len(pixels) != m.s.Rows*m.s.Cols {
		return nil, fmt.Errorf("mnistpage: an image of %d pixels, want %dx%d", len(pixels), m.s.Rows, m.s.Cols)
	}
	one := &mnist.Set{Set: &idx.Set{Images: pixels, Labels: []int{0}, Rows: m.s.Rows, Cols: m.s.Cols}, Mean: m.s.Mean, Std: m.s.Std}
	x, _ := one.Input([]int{0})
	p := autograd.Softmax(m.m.Forward(x.NoGrad()), 1).Data32()
	probs := make([]float64, len(p))
	for i, v := range p {
		probs[i] = float64(v)
	}
	return probs, nil
}

// Safetensors returns the model's weights as a safetensors file under
// PyTorch's names (nn.GetStateDict: the MLP's 1.weight, 1.bias, 3.weight,
// 3.bias), which
// safetensors.torch.load_file and load_state_dict read.
func (m *Model) Safetensors() ([]byte, error) {
	sd, err := nn.GetStateDict(m.m)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	err = tensorfile.WriteSafetensors(&b, sd, map[string]string{"format": "pt", "model": m.s.Model, "dataset": m.s.Dataset})
	return b.Bytes(), err
}
