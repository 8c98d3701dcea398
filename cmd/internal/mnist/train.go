package mnist

import (
	"math/rand/v2"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/nn"
	"github.com/dlca/dlca/autograd/optim"
)

// Config sets up a training run.
type Config struct {
	Epochs int
	Batch  int
	LR     float64 // Adam's peak learning rate, annealed to 0 along a cosine over the run
	Seed   uint64  // shuffling
	Device Device  // where m lives (nil: the CPU)
	// Progress, if not nil, is called after each step with the epoch (from
	// 1), the step within it (from 1) and the steps per epoch.
	Progress func(epoch, step, steps int)

	// Eager, on a device that captures steps (the GPU), runs every step
	// eagerly instead of capturing it once and replaying it.
	Eager bool
	// LossEvery reads the training loss back every LossEvery steps and at
	// each epoch's last (0 or 1: every step); the epoch's reported loss is
	// the mean of those read. Between reads the device runs step after
	// step without waiting for the host.
	LossEvery int
}

// device returns cfg's device, the CPU when none is set.
func (cfg Config) device() Device {
	if cfg.Device == nil {
		return On(autograd.CPU)
	}
	return cfg.Device
}

// Train fits m, already placed on cfg.Device, to train with Adam and softmax
// cross-entropy, reshuffling every epoch, the learning rate following a
// cosine from cfg.LR to 0. After each epoch it calls report, if not nil,
// with the epoch (from 1) and the mean training loss.
func Train(m nn.Module, train *Set, cfg Config, report func(epoch int, loss float64)) error {
	dev := cfg.device()
	adam := optim.DefaultAdam()
	adam.LR = cfg.LR
	opt := optim.NewAdam(m.Parameters(), adam)
	rng := rand.New(rand.NewPCG(cfg.Seed, 1))
	perEpoch := (train.Len() + cfg.Batch - 1) / cfg.Batch
	schedule := optim.CosineAnnealingLR{TMax: cfg.Epochs * perEpoch}
	st := newStepper(m, opt, dev, cfg.Eager)
	defer st.release()
	every := max(cfg.LossEvery, 1)
	step := 0
	for epoch := 1; epoch <= cfg.Epochs; epoch++ {
		perm := rng.Perm(train.Len())
		var total float64
		steps := 0
		for lo := 0; lo < len(perm); lo += cfg.Batch {
			optim.SetLR(opt, schedule, step)
			step++
			read := step%every == 0 || lo+cfg.Batch >= len(perm)
			loss, err := st.step(train, perm[lo:min(lo+cfg.Batch, len(perm))], read)
			if err != nil {
				return err
			}
			if read {
				total += loss
				steps++
			}
			if cfg.Progress != nil {
				cfg.Progress(epoch, lo/cfg.Batch+1, perEpoch)
			}
		}
		if report != nil {
			report(epoch, total/float64(steps))
		}
	}
	return nil
}

// trainStep takes one optimiser step on the examples at indices and returns
// the loss before it.
func trainStep(m nn.Module, opt optim.Optimizer, dev Device, s *Set, indices []int) (float64, error) {
	cpuX, y := s.Input(indices)
	x, err := dev.Input(cpuX)
	if err != nil {
		return 0, err
	}
	loss := nn.CrossEntropyLoss(m.Forward(x), y, nn.ReduceMean)
	opt.ZeroGrad()
	if err := loss.Backward(); err != nil {
		return 0, err
	}
	if err := opt.Step(); err != nil {
		return 0, err
	}
	host, err := dev.Host(loss)
	if err != nil {
		return 0, err
	}
	return host.Item(), nil
}

// Trajectory trains m, already placed on dev, for steps steps of Adam at a
// constant learning rate lr on fixed batches (step i takes the batch
// examples after the first i·batch, wrapping around s) and returns each
// step's loss: the record that devices and dtypes are compared by.
func Trajectory(m nn.Module, dev Device, s *Set, batch, steps int, lr float64) ([]float64, error) {
	adam := optim.DefaultAdam()
	adam.LR = lr
	opt := optim.NewAdam(m.Parameters(), adam)
	losses := make([]float64, steps)
	indices := make([]int, batch)
	for i := range losses {
		for j := range indices {
			indices[j] = (i*batch + j) % s.Len()
		}
		loss, err := trainStep(m, opt, dev, s, indices)
		if err != nil {
			return nil, err
		}
		losses[i] = loss
	}
	return losses, nil
}

// Predict returns m's class for every example of s, evaluated on dev
// without recording a graph.
func Predict(m nn.Module, dev Device, s *Set) ([]int, error) {
	const batch = 1000
	pred := make([]int, 0, s.Len())
	all := make([]int, s.Len())
	for i := range all {
		all[i] = i
	}
	for lo := 0; lo < len(all); lo += batch {
		cpuX, _ := s.Input(all[lo:min(lo+batch, len(all))])
		x, err := dev.Input(cpuX)
		if err != nil {
			return nil, err
		}
		logits, err := dev.Host(m.Forward(x.NoGrad()))
		if err != nil {
			return nil, err
		}
		pred = append(pred, autograd.ArgMax(logits, 1)...)
	}
	return pred, nil
}

// Accuracy returns the fraction of s that m, placed on dev, classifies
// correctly.
func Accuracy(m nn.Module, dev Device, s *Set) (float64, error) {
	pred, err := Predict(m, dev, s)
	if err != nil {
		return 0, err
	}
	correct := 0
	for i, p := range pred {
		if p == s.Labels[i] {
			correct++
		}
	}
	return float64(correct) / float64(max(s.Len(), 1)), nil
}
