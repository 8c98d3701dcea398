package gpu

import (
	"fmt"

	"github.com/dlca/dlca/autograd/optim"
	"github.com/dlca/dlca/bptt"
)

var _ bptt.Resumable = (*Engine)(nil)

// adamKind is the optim.State kind of the CPU engine's optimiser, which the
// GPU engine's AdamW reproduces.
const adamKind = "adamw"

// OptimizerState implements bptt.Resumable: AdamW's step count, learning
// rate and moments, read back from the device in the CPU engine's format
// (one buffer per layer's logits, dlca's Layers order), so that a
// checkpoint moves between the engines.
func (e *Engine) OptimizerState() (optim.State, error) {
	s := optim.State{Kind: adamKind, Steps: e.opt.T, LR: e.opt.Config.LR, Buffers: map[string][][]float64{}}
	for _, b := range []struct {
		name string
		buf  *Buffer
	}{{"m", e.opt.m}, {"v", e.opt.v}} {
		all, err := Read[float32](e.d, b.buf, e.opt.N)
		if err != nil {
			return optim.State{}, err
		}
		for _, l := range e.m.Layers() {
			n := l.Logits.Len()
			s.Buffers[b.name] = append(s.Buffers[b.name], to64(all[:n]))
			all = all[n:]
		}
	}
	return s, nil
}

// LoadOptimizerState implements bptt.Resumable. It returns an error when s
// was saved by another optimiser or for another model.
func (e *Engine) LoadOptimizerState(s optim.State) error {
	if s.Kind != adamKind || s.Steps < 0 {
		return fmt.Errorf("gpu: cannot load %q optimiser state at step %d into the GPU engine's AdamW", s.Kind, s.Steps)
	}
	layers := e.m.Layers()
	flat := map[string][]float32{}
	for _, name := range []string{"m", "v"} {
		saved := s.Buffers[name]
		if len(saved) != len(layers) {
			return fmt.Errorf("gpu: optimiser state buffer %q has %d entries for %d layers (was it saved for another model?)", name, len(saved), len(layers))
		}
		for i, l := range layers {
			data := saved[i]
			if data == nil { // the CPU engine's state before its first step
				data = make([]float64, l.Logits.Len())
			}
			if len(data) != l.Logits.Len() {
				return fmt.Errorf("gpu: optimiser state buffer %q for layer %s has %d values; the layer has %d logits", name, l.Name, len(data), l.Logits.Len())
			}
			flat[name] = append(flat[name], to32(data)...)
		}
	}
	if err := Write(e.d, e.opt.m, flat["m"]); err != nil {
		return err
	}
	if err := Write(e.d, e.opt.v, flat["v"]); err != nil {
		return err
	}
	e.opt.T, e.opt.Config.LR = s.Steps, s.LR
	return nil
}
