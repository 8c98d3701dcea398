package gpu

import (
	"fmt"
	"slices"

	"github.com/dlca/dlca/autograd/optim"
	"github.com/dlca/dlca/bptt"
)

var _ bptt.Resumable = (*Engine)(nil)

// adamKind is the optim.State kind of the CPU engine's optimiser, which the
// GPU engine's AdamW reproduces.
const adamKind = "adamw"

// OptimizerState implements bptt.Resumable: AdamW's step count, learning
// rate and moments, read back from the device in the CPU engine's format
// (one buffer and one step count per layer's logits, dlca's Layers order),
// so that a checkpoint moves between the engines.
func (e *Engine) OptimizerState() (optim.State, error) {
	s := optim.State{Kind: adamKind, Steps: e.opt.T, LR: e.opt.Config.LR, Buffers: map[string][][]float64{}}
	for range e.m.Layers() {
		s.ParamSteps = append(s.ParamSteps, e.opt.T)
	}
	for _, b := range []struct {
		name string
		buf  *Buffer
	}{{"m", e.opt.m}, {"v", e.opt.v}} {
		all, err := e.read(b.buf, e.opt.N)
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
// was saved by another optimiser or for another model, or holds what the
// GPU engine's AdamW cannot keep: per-layer step counts that differ (one
// count serves every logit), AMSGrad's maximum, or several parameter groups.
func (e *Engine) LoadOptimizerState(s optim.State) error {
	if s.Kind != adamKind || s.Steps < 0 {
		return fmt.Errorf("gpu: cannot load %q optimiser state at step %d into the GPU engine's AdamW", s.Kind, s.Steps)
	}
	layers := e.m.Layers()
	steps := s.Steps // a state from before per-parameter counts
	if s.ParamSteps != nil {
		if len(s.ParamSteps) != len(layers) {
			return fmt.Errorf("gpu: optimiser state has step counts for %d parameters for %d layers (was it saved for another model?)", len(s.ParamSteps), len(layers))
		}
		steps = s.ParamSteps[0]
		if slices.ContainsFunc(s.ParamSteps, func(n int) bool { return n != steps }) {
			return fmt.Errorf("gpu: optimiser state has different step counts per layer %v; the GPU engine keeps one for all; resume on the CPU engine", s.ParamSteps)
		}
	}
	if _, ok := s.Buffers["max_v"]; ok {
		return fmt.Errorf("gpu: optimiser state was saved with AMSGrad, which the GPU engine's AdamW does not do; resume on the CPU engine")
	}
	if len(s.GroupLRs) > 1 {
		return fmt.Errorf("gpu: optimiser state has %d parameter groups; the GPU engine's AdamW has one; resume on the CPU engine", len(s.GroupLRs))
	}
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
	e.opt.T, e.opt.Config.LR = steps, s.LR
	return nil
}

// to32 and to64 convert a checkpoint's float64 buffers to the device's
// float32 and back.
func to32(s []float64) []float32 {
	out := make([]float32, len(s))
	for i, v := range s {
		out[i] = float32(v)
	}
	return out
}

func to64(s []float32) []float64 {
	out := make([]float64, len(s))
	for i, v := range s {
		out[i] = float64(v)
	}
	return out
}
