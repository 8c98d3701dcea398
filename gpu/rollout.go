package gpu

import (
	"fmt"

	"github.com/cogentcore/webgpu/wgpu"
)

// rollout holds the buffers of one grid shape: every step's activations
// (kept for the backward pass), the gradient scratch buffers (reused by
// every step) and the three recorded programs.
type rollout struct {
	grid   Grid
	budget Budget
	bufs   []*Buffer

	state []*Buffer   // [T+1] states [cells][C]; state[0] is the initial state
	nb    []*Buffer   // [T] neighbourhoods [cells*C][9]
	act   [][]*Buffer // [T][layers] layer outputs
	uin   []*Buffer   // [T] update inputs [cells][UpdateInputs]
	fire  []*Buffer   // [T] fire masks [cells]

	gy     []*Buffer  // [layers] gradient of each layer's output
	gnb    *Buffer    // gradient of the neighbourhoods
	guin   *Buffer    // gradient of the update input
	dstate [2]*Buffer // gradients of the states, alternating by step
	target *Buffer    // [cells][C], zero outside the loss channels
	weight *Buffer    // [C], 1 on the loss channels
	loss   *Buffer    // [1]

	forward  *Program // coefficients, T steps, loss
	backward *Program // T steps back, logit gradients
	step     *Program // clipping, AdamW

	// straight says whether forward steps with the hard coefficients
	// (straight.go).
	straight bool

	// penalised says whether backward adds the state penalty's gradient
	// (penalty.go), of weight penaltyWeight, the value in the uniforms of
	// its penaltyUniforms dispatches.
	penalised       bool
	penaltyWeight   float32
	penaltyUniforms []*wgpu.Buffer
}

func (r *rollout) release() {
	for _, p := range []*Program{r.forward, r.backward, r.step} {
		if p != nil {
			p.Release()
		}
	}
	for _, b := range r.bufs {
		b.Release()
	}
	r.bufs = nil
}

// planned is a buffer to allocate into dst.
type planned struct {
	dst   **Buffer
	label string
	n     int
}

// planRollout returns an empty rollout on grid g and the buffers to allocate
// into it. The labels' first word groups them in the budget report.
func (e *Engine) planRollout(g Grid) (*rollout, []planned) {
	T, cfg := e.setup.Steps, e.m.Config
	layers := e.m.Layers()
	c := Concat{Cells: g.Cells(), Channels: cfg.Channels, Kernels: cfg.Kernels, Bits: cfg.PerceptionBits()}
	r := &rollout{grid: g,
		state: make([]*Buffer, T+1), nb: make([]*Buffer, T), act: make([][]*Buffer, T),
		uin: make([]*Buffer, T), fire: make([]*Buffer, T), gy: make([]*Buffer, len(layers)),
	}
	var p []planned
	add := func(dst **Buffer, n int, format string, args ...any) {
		p = append(p, planned{dst, fmt.Sprintf(format, args...), n})
	}
	add(&r.state[0], g.Len(), "state 0")
	for t := range T {
		add(&r.state[t+1], g.Len(), "state %d", t+1)
		add(&r.fire[t], g.Cells(), "fire step %d", t)
		add(&r.nb[t], 9*g.Len(), "activations step %d neighbourhood", t)
		add(&r.uin[t], c.Cells*c.Width(), "activations step %d update input", t)
		r.act[t] = make([]*Buffer, len(layers))
		for i, l := range layers {
			add(&r.act[t][i], e.layerDims(i, g).YLen(), "activations step %d %s", t, l.Name)
		}
	}
	for i, l := range layers {
		add(&r.gy[i], e.layerDims(i, g).YLen(), "gradients %s", l.Name)
	}
	add(&r.gnb, 9*g.Len(), "gradients neighbourhood")
	add(&r.guin, c.Cells*c.Width(), "gradients update input")
	add(&r.dstate[0], g.Len(), "gradients state A")
	add(&r.dstate[1], g.Len(), "gradients state B")
	add(&r.target, g.Len(), "loss target")
	add(&r.weight, cfg.Channels, "loss weight")
	add(&r.loss, 1, "loss value")
	return r, p
}

// record builds the forward, backward and step programs of e.r and uploads
// the loss weights.
func (e *Engine) record() error {
	r := e.r
	cfg := e.m.Config
	weight := make([]float32, cfg.Channels)
	for _, ch := range e.setup.LossChannels {
		weight[ch] = 1
	}
	if err := Write(e.d, r.weight, weight); err != nil {
		return err
	}
	r.forward, r.backward, r.step = e.d.NewProgram(), e.d.NewProgram(), e.d.NewProgram()
	if err := e.recordForward(r.forward); err != nil {
		return err
	}
	if err := e.recordBackward(r.backward); err != nil {
		return err
	}
	return e.recordStep(r.step)
}

// input returns the input of layer i (Layers order) at step t.
func (e *Engine) input(t, i int) *Buffer {
	switch np := len(e.m.Perception); {
	case i == 0:
		return e.r.nb[t]
	case i == np:
		return e.r.uin[t]
	default:
		return e.r.act[t][i-1]
	}
}

func (e *Engine) concat() Concat {
	cfg := e.m.Config
	return Concat{Cells: e.r.grid.Cells(), Channels: cfg.Channels, Kernels: cfg.Kernels, Bits: cfg.PerceptionBits()}
}

// recordForward: coefficients from the logits, T steps, then the loss and
// its gradient (into dstate[T%2], where the backward phase starts). While
// straight-through is on the steps read the hard coefficients, computed
// from the logits after the soft ones, which the backward phase reads.
func (e *Engine) recordForward(p *Program) error {
	r, g := e.r, e.r.grid
	np, nl := len(e.m.Perception), len(e.layers)
	r.straight = e.straight
	errs := []error{p.GateCoeffs(e.g)}
	coeffs := e.g.Coeffs
	if r.straight {
		errs, coeffs = append(errs, p.GateHardCoeffs(e.hard, e.g)), e.hard
	}
	for t := range e.setup.Steps {
		errs = append(errs, p.PerceptionGather(r.nb[t], r.state[t], g))
		for i, l := range e.layers {
			if i == np {
				errs = append(errs, p.UpdateInput(r.uin[t], r.state[t], r.act[t][np-1], e.concat()))
			}
			d := e.layerDims(i, g)
			errs = append(errs, p.GateForward(r.act[t][i], e.input(t, i), l, coeffs, d.Rows, d.SharedInput))
		}
		errs = append(errs, p.FireMask(r.state[t+1], r.fire[t], r.state[t], r.act[t][nl-1], g))
	}
	T := e.setup.Steps
	errs = append(errs, p.Loss(r.loss, r.dstate[T%2], r.weight, r.state[T], r.target, g))
	return joinFirst(errs)
}

// recordBackward: T steps back from the loss gradient, accumulating the
// four per-gate sums, and, while the state penalty is on, adding its
// gradient to each intermediate state's; then the logit gradients.
func (e *Engine) recordBackward(p *Program) error {
	r, g := e.r, e.r.grid
	np, nl := len(e.m.Perception), len(e.layers)
	r.penalised, r.penaltyWeight, r.penaltyUniforms = e.penalty > 0, float32(e.penalty), nil
	p.Clear(e.g.Sums)
	p.Clear(e.g.Grads)
	var errs []error
	for t := e.setup.Steps - 1; t >= 0; t-- {
		dnext, dcur := r.dstate[(t+1)%2], r.dstate[t%2]
		errs = append(errs, p.FireMaskBackward(r.gy[nl-1], dcur, r.fire[t], dnext, g))
		for i := nl - 1; i >= 0; i-- {
			l, d, x := e.layers[i], e.layerDims(i, g), e.input(t, i)
			errs = append(errs, p.GateSums(e.g, x, r.gy[i], l, d.Rows, d.SharedInput))
			switch {
			case i == np:
				errs = append(errs,
					p.GateBackwardInput(r.guin, x, r.gy[i], l, e.g, d.Rows, d.SharedInput),
					p.UpdateInputBackward(dcur, r.gy[np-1], r.guin, e.concat()))
			case i > 0:
				errs = append(errs, p.GateBackwardInput(r.gy[i-1], x, r.gy[i], l, e.g, d.Rows, d.SharedInput))
			case t > 0: // the initial state needs no gradient
				errs = append(errs,
					p.GateBackwardInput(r.gnb, x, r.gy[i], l, e.g, d.Rows, d.SharedInput),
					p.PerceptionGatherBackward(dcur, r.gnb, g))
			}
		}
		if r.penalised && t > 0 { // dcur is now the whole gradient of state[t] but the penalty's
			errs = append(errs, e.recordStatePenalty(p, dcur, t))
		}
	}
	errs = append(errs, p.GateLogitGrad(e.g))
	return joinFirst(errs)
}

// recordStep: the optimiser's step from the logit gradients, clipping and
// AdamW (whose constants e.opt.Advance writes before each run).
func (e *Engine) recordStep(p *Program) error {
	n := 16 * e.g.N
	return joinFirst([]error{p.ClipValue(e.g.Grads, n, float32(e.setup.Optimizer.Clip)), p.AdamW(e.opt, e.g.Logits, e.g.Grads)})
}

// joinFirst returns the first non-nil error: later ones are usually its
// consequences.
func joinFirst(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
