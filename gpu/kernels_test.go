package gpu

import (
	"github.com/dlca/dlca/gates"
)

// Kernels is every kernel of the package as a function on host slices, so a
// test body can run against the GPU and against its CPU twin (CPUTwin) alike.
// Each method is named after its shader file (GateForward runs
// gate_forward.wgsl) and takes and returns data in the kernel's layout.
type Kernels interface {
	// Name is "cpu" or "gpu", for test names.
	Name() string
	// GateCoeffs returns softmax(logits) ([n][16]) and the gates' relaxed
	// coefficients ([n][4]).
	GateCoeffs(logits []float32) (probs, coeffs []float32, err error)
	// GateHardCoeffs returns the gates' hard coefficients ([n][4]), each
	// gate one-hot on its most probable op (ties to the lowest op).
	GateHardCoeffs(logits []float32) ([]float32, error)
	// GateForward applies a gate layer with coefficients coeffs
	// ([Groups][Out][4]) to x, in gates.Dims' layouts.
	GateForward(x, coeffs []float32, w gates.Wiring, d gates.Dims) ([]float32, error)
	// GateBackwardInput returns dL/dx given gy = dL/dy.
	GateBackwardInput(x, gy, coeffs []float32, w gates.Wiring, d gates.Dims) ([]float32, error)
	// GateSums returns the four per-gate sums over the rows,
	// (sum gy, sum gy*a, sum gy*b, sum gy*a*b), [Groups][Out][4].
	GateSums(x, gy []float32, w gates.Wiring, d gates.Dims) ([]float32, error)
	// GateBackward returns GateBackwardInput's dL/dx followed by GateSums'
	// sums, from one kernel.
	GateBackward(x, gy, coeffs []float32, w gates.Wiring, d gates.Dims) ([]float32, error)
	// GateLogitGrad returns dL/dlogits from the probabilities and the sums.
	GateLogitGrad(probs, sums []float32) ([]float32, error)
	// ClipValue returns g clamped to [-limit, limit].
	ClipValue(g []float32, limit float32) ([]float32, error)
	// AdamW runs one AdamW step per entry of grads from params and zero
	// moments, and returns the final parameters.
	AdamW(cfg AdamWConfig, params []float32, grads [][]float32) ([]float32, error)
	// PerceptionGather returns the neighbourhoods [cells*C, 9] of state.
	PerceptionGather(state []float32, g Grid) ([]float32, error)
	// PerceptionGatherBackward returns dL/dstate given dnb = dL/dnb.
	PerceptionGatherBackward(dnb []float32, g Grid) ([]float32, error)
	// UpdateInput returns the update network's input from state and the
	// last perception layer's output.
	UpdateInput(state, percep []float32, c Concat) ([]float32, error)
	// UpdateInputBackward splits duin into the state's and the perception's
	// gradients.
	UpdateInputBackward(duin []float32, c Concat) (dstate, dpercep []float32, err error)
	// FireMask returns fire ? upd : state per cell.
	FireMask(fire, state, upd []float32, g Grid) ([]float32, error)
	// FireMaskBackward returns the gradients of upd and state given dnext.
	FireMaskBackward(fire, dnext []float32, g Grid) (dupd, dstate []float32, err error)
	// Loss returns sum weight[c]*(state-target)^2 and its gradient; the
	// weights are 1 on the loss channels and 0 elsewhere.
	Loss(weight, state, target []float32, g Grid) (loss float32, dstate []float32, err error)
	// StatePenaltyGrad returns dstate plus the gradient of weight times the
	// state penalty, the sum of x(1-x) over state.
	StatePenaltyGrad(state, dstate []float32, weight float32) ([]float32, error)
}

// GPU runs Kernels on a device, one program (one submission) per call.
type GPU struct{ D *Device }

// Name returns "gpu".
func (GPU) Name() string { return "gpu" }

// oneShot is a program with the buffers it reads and writes, run once: it
// keeps the first error and frees everything at close.
type oneShot struct {
	d    *Device
	p    *Program
	bufs []*Buffer
	ran  bool
	err  error
}

func (k GPU) start() *oneShot { return &oneShot{d: k.D, p: k.D.NewProgram()} }

// in allocates a buffer of max(n, len(data)) elements holding data.
func (s *oneShot) in(label string, data []float32, n int) *Buffer {
	if s.err != nil {
		return &Buffer{Label: label, N: max(n, len(data))}
	}
	b, err := s.d.NewBuffer(label, max(n, len(data)))
	if s.record(err) {
		return &Buffer{Label: label, N: max(n, len(data))}
	}
	s.bufs = append(s.bufs, b)
	s.record(Write(s.d, b, data))
	return b
}

// record keeps err if it is the first; it reports whether an error is held.
func (s *oneShot) record(err error) bool {
	if s.err == nil {
		s.err = err
	}
	return s.err != nil
}

// read runs the program (once) and reads back b's first n elements.
func (s *oneShot) read(b *Buffer, n int) []float32 {
	if s.err != nil {
		return nil
	}
	if !s.ran {
		s.ran = true
		if s.record(s.p.Run()) {
			return nil
		}
	}
	out, err := Read[float32](s.d, b, n)
	s.record(err)
	return out
}

func (s *oneShot) close() {
	s.p.Release()
	for _, b := range s.bufs {
		b.Release()
	}
}

// gates allocates model-wide per-gate buffers for n gates from host arrays.
func (s *oneShot) gates(n int, logits, probs, coeffs, sums []float32) *Gates {
	return &Gates{N: n,
		Logits: s.in("logits", logits, 16*n), Probs: s.in("probs", probs, 16*n),
		Coeffs: s.in("coeffs", coeffs, 4*n), Sums: s.in("sums", sums, 4*n), Grads: s.in("grads", nil, 16*n)}
}

// index uploads a gather pattern for the one-shot program.
func (s *oneShot) index(offs []int, src int) *Index {
	if s.err != nil {
		return &Index{N: len(offs), Src: src}
	}
	ix, err := s.d.NewIndex("index", offs, src)
	if s.record(err) {
		return &Index{N: len(offs), Src: src}
	}
	s.bufs = append(s.bufs, ix.offs, ix.start, ix.pos)
	return ix
}

// layer uploads a layer's wiring for the one-shot program.
func (s *oneShot) layer(w gates.Wiring, d gates.Dims) *Layer {
	if s.err != nil {
		return &Layer{In: d.In, Out: d.Out, Groups: d.Groups}
	}
	l, err := s.d.NewLayer("layer", d.In, d.Groups, w, 0)
	if s.record(err) {
		return &Layer{In: d.In, Out: d.Out, Groups: d.Groups}
	}
	s.bufs = append(s.bufs, l.wiring, l.revStart, l.revSlot)
	return l
}

// GateCoeffs runs gate_coeffs.wgsl.
func (k GPU) GateCoeffs(logits []float32) (probs, coeffs []float32, err error) {
	s := k.start()
	defer s.close()
	n := len(logits) / gates.NumOps
	g := s.gates(n, logits, nil, nil, nil)
	if s.err == nil {
		s.record(s.p.GateCoeffs(g))
	}
	probs, coeffs = s.read(g.Probs, 16*n), s.read(g.Coeffs, 4*n)
	return probs, coeffs, s.err
}

// GateHardCoeffs runs gate_hard_coeffs.wgsl.
func (k GPU) GateHardCoeffs(logits []float32) ([]float32, error) {
	s := k.start()
	defer s.close()
	n := len(logits) / gates.NumOps
	g := s.gates(n, logits, nil, nil, nil)
	hard := s.in("hard", nil, 4*n)
	if s.err == nil {
		s.record(s.p.GateHardCoeffs(hard, g))
	}
	return s.read(hard, 4*n), s.err
}

// GateForward runs gate_forward.wgsl.
func (k GPU) GateForward(x, coeffs []float32, w gates.Wiring, d gates.Dims) ([]float32, error) {
	s := k.start()
	defer s.close()
	g := s.gates(d.Gates(), nil, nil, coeffs, nil)
	l := s.layer(w, d)
	bx, by := s.in("x", x, 0), s.in("y", nil, d.YLen())
	if s.err == nil {
		s.record(s.p.GateForward(by, bx, l, g.Coeffs, d.Rows, d.SharedInput))
	}
	return s.read(by, d.YLen()), s.err
}

// GateBackwardInput runs gate_backward_input.wgsl.
func (k GPU) GateBackwardInput(x, gy, coeffs []float32, w gates.Wiring, d gates.Dims) ([]float32, error) {
	s := k.start()
	defer s.close()
	g := s.gates(d.Gates(), nil, nil, coeffs, nil)
	l := s.layer(w, d)
	bx, bgy, bgx := s.in("x", x, 0), s.in("gy", gy, 0), s.in("gx", nil, d.XLen())
	if s.err == nil {
		s.record(s.p.GateBackwardInput(bgx, bx, bgy, l, g, d.Rows, d.SharedInput))
	}
	return s.read(bgx, d.XLen()), s.err
}

// GateSums runs gate_sums.wgsl on zeroed sums.
func (k GPU) GateSums(x, gy []float32, w gates.Wiring, d gates.Dims) ([]float32, error) {
	s := k.start()
	defer s.close()
	g := s.gates(d.Gates(), nil, nil, nil, nil)
	l := s.layer(w, d)
	bx, bgy := s.in("x", x, 0), s.in("gy", gy, 0)
	if s.err == nil {
		s.record(s.p.GateSums(g, bx, bgy, l, d.Rows, d.SharedInput))
	}
	return s.read(g.Sums, 4*d.Gates()), s.err
}

// GateBackward runs gate_backward.wgsl on zeroed sums.
func (k GPU) GateBackward(x, gy, coeffs []float32, w gates.Wiring, d gates.Dims) ([]float32, error) {
	s := k.start()
	defer s.close()
	g := s.gates(d.Gates(), nil, nil, coeffs, nil)
	l := s.layer(w, d)
	bx, bgy, bgx := s.in("x", x, 0), s.in("gy", gy, 0), s.in("gx", nil, d.XLen())
	if s.err == nil {
		s.record(s.p.GateBackward(bgx, bx, bgy, l, g, d.Rows, d.SharedInput))
	}
	gx := s.read(bgx, d.XLen())
	return append(gx, s.read(g.Sums, 4*d.Gates())...), s.err
}

// GateLogitGrad runs gate_logit_grad.wgsl on zeroed gradients.
func (k GPU) GateLogitGrad(probs, sums []float32) ([]float32, error) {
	s := k.start()
	defer s.close()
	n := len(sums) / 4
	g := s.gates(n, nil, probs, nil, sums)
	if s.err == nil {
		s.record(s.p.GateLogitGrad(g))
	}
	return s.read(g.Grads, 16*n), s.err
}

// ClipValue runs clip_value.wgsl.
func (k GPU) ClipValue(g []float32, limit float32) ([]float32, error) {
	s := k.start()
	defer s.close()
	b := s.in("grads", g, 0)
	if s.err == nil {
		s.record(s.p.ClipValue(b, len(g), limit))
	}
	return s.read(b, len(g)), s.err
}

// AdamW runs the engine's recorded AdamW step (autograd/adam.wgsl) once per
// gradient, one submission per step.
func (k GPU) AdamW(cfg AdamWConfig, params []float32, grads [][]float32) ([]float32, error) {
	s := k.start()
	defer s.close()
	bp, bg := s.in("params", params, 0), s.in("grads", nil, len(params))
	if s.err != nil {
		return nil, s.err
	}
	o, err := k.D.NewAdamW(len(params), cfg)
	if err != nil {
		return nil, err
	}
	defer o.Release()
	if s.record(s.p.AdamW(o, bp, bg)) {
		return nil, s.err
	}
	for _, g := range grads {
		s.record(Write(k.D, bg, g))
		s.record(o.Advance(k.D))
		s.record(s.p.Run())
	}
	s.ran = true
	return s.read(bp, len(params)), s.err
}

// PerceptionGather runs perception_gather.wgsl.
func (k GPU) PerceptionGather(state []float32, g Grid) ([]float32, error) {
	s := k.start()
	defer s.close()
	bs, nb := s.in("state", state, 0), s.in("nb", nil, 9*g.Len())
	if s.err == nil {
		s.record(s.p.PerceptionGather(nb, bs, g))
	}
	return s.read(nb, 9*g.Len()), s.err
}

// PerceptionGatherBackward runs perception_gather_backward.wgsl on a zeroed
// dstate.
func (k GPU) PerceptionGatherBackward(dnb []float32, g Grid) ([]float32, error) {
	s := k.start()
	defer s.close()
	bnb, ds := s.in("dnb", dnb, 0), s.in("dstate", nil, g.Len())
	if s.err == nil {
		s.record(s.p.PerceptionGatherBackward(ds, bnb, g))
	}
	return s.read(ds, g.Len()), s.err
}

// UpdateInput runs update_input.wgsl.
func (k GPU) UpdateInput(state, percep []float32, c Concat) ([]float32, error) {
	s := k.start()
	defer s.close()
	bs, bp, bu := s.in("state", state, 0), s.in("percep", percep, 0), s.in("uin", nil, c.Cells*c.Width())
	if s.err == nil {
		s.record(s.p.UpdateInput(bu, bs, bp, c))
	}
	return s.read(bu, c.Cells*c.Width()), s.err
}

// UpdateInputBackward runs update_input_backward.wgsl on a zeroed dstate.
func (k GPU) UpdateInputBackward(duin []float32, c Concat) (dstate, dpercep []float32, err error) {
	s := k.start()
	defer s.close()
	n := c.Cells * c.Channels
	bu, bs, bp := s.in("duin", duin, 0), s.in("dstate", nil, n), s.in("dpercep", nil, n*c.Kernels*c.Bits)
	if s.err == nil {
		s.record(s.p.UpdateInputBackward(bs, bp, bu, c))
	}
	dstate, dpercep = s.read(bs, n), s.read(bp, n*c.Kernels*c.Bits)
	return dstate, dpercep, s.err
}

// FireMask runs fire_mask.wgsl.
func (k GPU) FireMask(fire, state, upd []float32, g Grid) ([]float32, error) {
	s := k.start()
	defer s.close()
	bf, bs, bu, bn := s.in("fire", fire, 0), s.in("state", state, 0), s.in("upd", upd, 0), s.in("next", nil, g.Len())
	if s.err == nil {
		s.record(s.p.FireMask(bn, bf, bs, bu, g))
	}
	return s.read(bn, g.Len()), s.err
}

// FireMaskBackward runs fire_mask_backward.wgsl.
func (k GPU) FireMaskBackward(fire, dnext []float32, g Grid) (dupd, dstate []float32, err error) {
	s := k.start()
	defer s.close()
	bf, bn, bu, bs := s.in("fire", fire, 0), s.in("dnext", dnext, 0), s.in("dupd", nil, g.Len()), s.in("dstate", nil, g.Len())
	if s.err == nil {
		s.record(s.p.FireMaskBackward(bu, bs, bf, bn, g))
	}
	dupd, dstate = s.read(bu, g.Len()), s.read(bs, g.Len())
	return dupd, dstate, s.err
}

// Loss runs loss.wgsl.
func (k GPU) Loss(weight, state, target []float32, g Grid) (float32, []float32, error) {
	s := k.start()
	defer s.close()
	bw, bs, bt := s.in("weight", weight, 0), s.in("state", state, 0), s.in("target", target, 0)
	bd, bl := s.in("dstate", nil, g.Len()), s.in("loss", nil, 1)
	if s.err == nil {
		s.record(s.p.Loss(bl, bd, bw, bs, bt, g))
	}
	dstate := s.read(bd, g.Len())
	loss := s.read(bl, 1)
	if s.err != nil {
		return 0, nil, s.err
	}
	return loss[0], dstate, nil
}

// StatePenaltyGrad runs state_penalty_grad.wgsl.
func (k GPU) StatePenaltyGrad(state, dstate []float32, weight float32) ([]float32, error) {
	s := k.start()
	defer s.close()
	bs, bd := s.in("state", state, 0), s.in("dstate", dstate, 0)
	if s.err == nil {
		s.record(s.p.StatePenaltyGrad(bd, bs, len(state), weight))
	}
	return s.read(bd, len(state)), s.err
}
