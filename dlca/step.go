package dlca

import (
	"fmt"
	"math/rand/v2"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/gates"
	"github.com/dlca/dlca/internal/parallel"
	"github.com/dlca/dlca/jaxrand"
)

// stepOp is one whole step of the automaton (neighbourhood gather, perception,
// update, optional fire mask) fused into a single autograd op. Its inputs are
// the state followed by every layer's coefficients (coeffOp's outputs); its
// backward pass runs the gates package's kernels over the activations it
// kept (the update network's input and outputs; the perception's it
// recomputes). Both passes run each phase's layers tile by tile (tiles.go).
//
// With hard (a straight-through rollout) the forward pass, and the
// perception's recomputation, step with hard's coefficients, every gate its
// argmax op, while the backward pass keeps the inputs' relaxed
// coefficients: the gradient is the soft model's, taken at the circuit's
// activations.
type stepOp[F gates.Float] struct {
	p       *plan
	act     *activations[F]
	scratch *stepScratch[F] // shared by the steps of a rollout
	fire    []bool          // per cell; nil in a synchronous step
	hard    [][]F           // per layer, the forward pass's coefficients; nil: the inputs'
}

// stepScratch is what a step's passes write and forget: the state and its
// gradient feature-major ([C][cells]), two gradient buffers that serve
// every update layer in turn, the gradient of the update network's
// output, that of the neighbourhoods, the layers' per-block sums, and each
// worker's buffers for the perception tiles.
type stepScratch[F gates.Float] struct {
	fm, dfm []F
	grad    [2][]F
	out     []F
	dnb     []F
	partial [][]float64
	tiles   []*tileScratch[F]
}

// transposed returns state ([cells, C]) feature-major, [C][cells], in
// s.fm.
func (s *stepScratch[F]) transposed(state []F, cells, c int) []F {
	s.fm = grow(s.fm, len(state))
	gates.Transpose(s.fm, state, cells, c)
	return s.fm
}

func (op *stepOp[F]) Name() string { return "dlca.Step" }

func (op *stepOp[F]) Forward(in []*autograd.Tensor) *autograd.Tensor {
	p, a := op.p, op.act
	cfg := p.m.Config
	cells, c := p.g.Cells(), cfg.Channels
	state := data[F](in[0])
	coeffs := op.forwardCoefficients(in[1:])
	fm := op.scratch.transposed(state, cells, c)
	forwardPerception(p, op.scratch, coeffs, fm, a.uin)
	copy(a.uin[:c*cells], fm) // the own channels
	forwardUpdate(p, a, coeffs)
	out := autograd.Zeros(in[0].DType(), in[0].Shape()...)
	SelectFired(data[F](out), state, a.layers[len(a.layers)-1], op.fire, cells, c)
	return out
}

func (op *stepOp[F]) Backward(grad *autograd.Tensor, in []*autograd.Tensor, _ *autograd.Tensor) []*autograd.Tensor {
	p, a, s := op.p, op.act, op.scratch
	cfg := p.m.Config
	cells, c := p.g.Cells(), cfg.Channels
	dstate := autograd.ZerosLike(in[0])
	ds := data[F](dstate)
	coeffs := coefficientData[F](in[1:])
	_, update := p.phases()
	// g is the gradient of the last layer's output [C][cells]; a cell that
	// did not fire passed its state through unchanged instead.
	s.out = grow(s.out, c*cells)
	SplitFiredGrad(s.out, ds, data[F](grad), op.fire, cells, c)
	// Every update layer's input, output gradient and input gradient, the
	// gradients taking turns in the two buffers (the phase's tiles then
	// run all its layers without waiting for one another).
	n := len(p.layers)
	xs, gs, dxs := make([][]F, n), make([][]F, n), make([][]F, n)
	if len(s.partial) != n {
		s.partial = make([][]float64, n)
	}
	partial := make([][]float64, n)
	for i := range n {
		if in[1+i].RequiresGrad() {
			s.partial[i] = grow(s.partial[i], p.layers[i].d.PartialLen())
			partial[i] = s.partial[i]
		}
	}
	g := s.out
	for i := update.to - 1; i >= update.from; i-- {
		xs[i] = a.uin
		if i > update.from {
			xs[i] = a.layers[i-1-update.from]
		}
		gs[i], dxs[i] = g, op.buffer(len(xs[i]), g)
		g = dxs[i]
	}
	backwardUpdate(p, dxs, gs, xs, coeffs, partial)
	// The state's gradient, feature-major like everything it adds up,
	// takes the own channels' and the neighbourhoods' gradients.
	s.dfm = grow(s.dfm, len(ds))
	gates.Transpose(s.dfm, ds, cells, c)
	duin := dxs[update.from]
	for i, v := range duin[:c*cells] {
		s.dfm[i] += v
	}
	s.dnb = grow(s.dnb, NeighbourhoodSize*p.g.Len())
	backwardPerception(p, s, op.forwardCoefficients(in[1:]), coeffs, s.transposed(data[F](in[0]), cells, c), duin, s.dnb, partial)
	parallel.For(c, p.workers, func(_, c0, c1 int) { addNeighbourhoodGradChannels(s.dfm, s.dnb, p.runs, p.g, c0, c1) })
	gates.Transpose(ds, s.dfm, c, cells)
	grads := make([]*autograd.Tensor, len(in))
	grads[0] = dstate
	for i, pt := range partial {
		if pt == nil {
			continue
		}
		sums := make([]float64, 4*p.layers[i].d.Gates())
		gates.AddPartialSums(sums, pt)
		t := autograd.ZerosLike(in[1+i])
		for j, v := range sums {
			t.SetAt(j, v)
		}
		grads[1+i] = t
	}
	return grads
}

// forwardCoefficients returns the coefficients the forward pass steps
// with: hard's in a straight-through step, else the inputs' ts.
func (op *stepOp[F]) forwardCoefficients(ts []*autograd.Tensor) [][]F {
	if op.hard != nil {
		return op.hard
	}
	return coefficientData[F](ts)
}

// coefficientData returns the data of every layer's coefficient tensor.
func coefficientData[F gates.Float](ts []*autograd.Tensor) [][]F {
	cs := make([][]F, len(ts))
	for i, t := range ts {
		cs[i] = data[F](t)
	}
	return cs
}

// grow returns b with length n, reallocated only when too short. Its
// contents are stale.
func grow[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}

// buffer returns a gradient buffer of n elements that is not busy (busy is
// the one in use). Its contents are stale: gates.BackwardSoftFMBlocks
// overwrites it.
func (op *stepOp[F]) buffer(n int, busy []F) []F {
	for i, b := range op.scratch.grad {
		if cap(b) > 0 && &b[:1][0] == &busy[:1][0] {
			continue
		}
		op.scratch.grad[i] = grow(b, n)
		return op.scratch.grad[i]
	}
	panic("dlca: step: no free gradient buffer")
}

// Workspace keeps the activation buffers of a rollout so that the next
// rollout of the same shape reuses them instead of allocating. A Workspace
// must not be shared by two rollouts whose graphs are alive at once: the
// second overwrites what the first needs for its backward pass.
type Workspace struct {
	key      Grid
	steps    []any // *activations[F] per step
	scratch  any   // *stepScratch[F]
	runs     [][]run
	runsGrid Grid // the grid of runs
}

// runsOf returns g.runs(), computed once per grid when w is not nil (the
// engine's recomputing backward pass runs a rollout per step).
func (w *Workspace) runsOf(g Grid) [][]run {
	if w == nil {
		return g.runs()
	}
	if w.runs == nil || w.runsGrid != g {
		w.runs, w.runsGrid = g.runs(), g
	}
	return w.runs
}

func (w *Workspace) step(t int, p *plan) any {
	if w == nil {
		return nil
	}
	if w.key != p.g {
		w.key, w.steps = p.g, nil
	}
	for len(w.steps) <= t {
		w.steps = append(w.steps, nil)
	}
	return w.steps[t]
}

// RolloutOptions configure Model.Rollout. The zero value is a synchronous
// rollout that keeps no workspace.
type RolloutOptions struct {
	// Async makes each cell fire with probability Config.FireRate per step;
	// the fire masks come from Config.FireMasks(Seed).
	Async bool
	Seed  uint64
	// Workspace, if not nil, holds the activation buffers across rollouts.
	Workspace *Workspace
	// After, if not nil, is called after every step t (1-based) with the
	// new state; it may return a replacement (a damaged state, say), which
	// should not require a gradient.
	After func(t int, state *autograd.Tensor) *autograd.Tensor
	// Coefficients, if not nil, are the gate coefficients to step with
	// (Coefficients' result) instead of fresh ones from the logits, and
	// Masks, if not nil, continues an earlier rollout's fire masks: a
	// rollout run in pieces (gradient checkpointing over time, package
	// bptt) then computes and accumulates exactly what one rollout does.
	Coefficients []*autograd.Tensor
	Masks        *FireMasks
	// Workers is the number of goroutines a step runs on, 0 meaning
	// GOMAXPROCS. The results are the same bit for bit whatever it is;
	// only the speed changes (on some machines one is the fastest).
	Workers int
	// Stop, if not nil, is asked before every step; when it returns true
	// the rollout ends there and returns the state so far (a command
	// stopped by Ctrl-C).
	Stop func() bool
	// StraightThrough steps forward with every gate its argmax op (the
	// circuit's gates) and backpropagates the soft
	// model's gradient at those activations: the coefficients, and the
	// gradient they pass to the logits, are the relaxed ones. From a state
	// of bits the rollout is the circuit's, so the loss is the hard loss.
	// A training method (bptt.Run.StraightThroughFrom), off by default.
	StraightThrough bool
}

// Step runs one step of the soft automaton on state [B, H, W, C]: every
// cell updates when fire is nil, otherwise only the cells c with fire[c]
// (one entry per cell of the batch). Use Rollout for many steps: it computes
// the gate coefficients once. Step panics like Rollout, or if fire has the
// wrong length.
func (m *Model) Step(state *autograd.Tensor, fire []bool) *autograd.Tensor {
	g := gridOf("Step", state, m.Config.Channels, m.Config.Boundary)
	if fire != nil && len(fire) != g.Cells() {
		panic(fmt.Sprintf("dlca: Step: %d fire flags for %d cells", len(fire), g.Cells()))
	}
	return m.rollout(state, 1, RolloutOptions{}, func(int) []bool { return fire })
}

// Rollout runs the soft automaton for steps steps from state [B, H, W, C]
// (values in [0, 1]) and returns the final state. When recording is on and
// the logits or the state require a gradient, the rollout is recorded as one
// op per step and Backward reaches every logit through all the steps.
// Rollout panics if state is not [B, H, W, Channels] or of the model's dtype.
func (m *Model) Rollout(state *autograd.Tensor, steps int, opt RolloutOptions) *autograd.Tensor {
	if steps < 0 {
		panic(fmt.Sprintf("dlca: Rollout: %d steps", steps))
	}
	fire := func(int) []bool { return nil }
	if opt.Async {
		masks := opt.Masks
		if masks == nil {
			masks = m.Config.FireMasks(opt.Seed)
		}
		fire = func(cells int) []bool { return masks.Next(cells) }
	}
	return m.rollout(state, steps, opt, fire)
}

// rollout runs steps steps, taking each step's fire mask from fire(cells).
func (m *Model) rollout(state *autograd.Tensor, steps int, opt RolloutOptions, fire func(cells int) []bool) *autograd.Tensor {
	g := gridOf("Rollout", state, m.Config.Channels, m.Config.Boundary)
	if state.DType() != m.DType() {
		panic(fmt.Sprintf("dlca: Rollout: %v state for a %v model", state.DType(), m.DType()))
	}
	p := newPlan(m, g, opt.Workspace.runsOf(g))
	p.workers = opt.Workers
	coeffs := opt.Coefficients
	if coeffs == nil {
		coeffs = m.coefficients()
	}
	var hard any // [][]F, the forward pass's coefficients of a straight-through rollout
	if opt.StraightThrough {
		hard = m.hardCoeffs()
	}
	// NOTE: when nothing is recorded no step's activations outlive it, so
	// every step can share one set of buffers (slot 0 of a workspace).
	ws, slot := opt.Workspace, func(t int) int { return t }
	if state.IsNoGrad() || !state.RequiresGrad() && !anyRequiresGrad(coeffs) {
		if ws == nil {
			ws = new(Workspace)
		}
		slot = func(int) int { return 0 }
	}
	for t := range steps {
		if opt.Stop != nil && opt.Stop() {
			break
		}
		fire := fire(g.Cells())
		if m.DType() == autograd.Float64 {
			state = applyStep[float64](p, ws, slot(t), fire, state, coeffs, hard)
		} else {
			state = applyStep[float32](p, ws, slot(t), fire, state, coeffs, hard)
		}
		if opt.After != nil {
			state = opt.After(t+1, state)
		}
	}
	return state
}

func anyRequiresGrad(ts []*autograd.Tensor) bool {
	for _, t := range ts {
		if t.RequiresGrad() {
			return true
		}
	}
	return false
}

func applyStep[F gates.Float](p *plan, ws *Workspace, t int, fire []bool, state *autograd.Tensor, coeffs []*autograd.Tensor, hard any) *autograd.Tensor {
	act, _ := ws.step(t, p).(*activations[F])
	if act == nil || !act.fits(p) {
		act = newActivations[F](p)
		if ws != nil {
			ws.steps[t] = act
		}
	}
	scratch := new(stepScratch[F])
	if ws != nil {
		if s, ok := ws.scratch.(*stepScratch[F]); ok {
			scratch = s
		}
		ws.scratch = scratch
	}
	h, _ := hard.([][]F)
	return autograd.Apply(&stepOp[F]{p: p, act: act, scratch: scratch, fire: fire, hard: h}, append([]*autograd.Tensor{state}, coeffs...)...)
}

// FireMasks draws the asynchronous fire masks, step after step, from one
// of the random streams (stream.go). The soft and the hard rollouts use it
// alike, so both see the same masks for the same seed.
type FireMasks struct{ src maskSource }

// maskSource is one stream's masks: next returns the next step's mask over
// cells cells.
type maskSource interface{ next(cells int) []bool }

// NewFireMasks returns the PCG stream's masks for seed and fire rate: per
// step, one draw per cell in (batch, row, column) order from
// rand.NewPCG(seed, 0), the cell firing when rand.Float64() < rate.
func NewFireMasks(seed uint64, rate float64) *FireMasks {
	return &FireMasks{pcgMasks{rng: rand.New(rand.NewPCG(seed, 0)), rate: rate}}
}

// NewJAXFireMasks returns the JAX stream's masks from the key packed in
// seed (jaxrand.Key.Uint64), as the notebook's run_iter_nca and run_async
// draw them: per step the key is split into (key, sub), and a cell fires
// when jax.random.uniform(sub, cells) <= rate, compared in float32.
//
// NOTE: the notebook draws one board's mask and, under vmap with an
// unbatched key, every board of a batch reuses it; here one mask covers all
// the cells of the batch. The two agree for a batch of one board, which is
// every asynchronous run of the paper (training and checks alike).
func NewJAXFireMasks(seed uint64, rate float64) *FireMasks {
	return &FireMasks{&jaxMasks{key: jaxrand.KeyOf(seed), rate: float32(rate)}}
}

// FireMasks returns the masks of c's stream (c.RNG) for seed and
// c.FireRate.
func (c Config) FireMasks(seed uint64) *FireMasks { return fireMasks(c.RNG, seed, c.FireRate) }

func fireMasks(stream string, seed uint64, rate float64) *FireMasks {
	if stream == StreamJAX {
		return NewJAXFireMasks(seed, rate)
	}
	return NewFireMasks(seed, rate)
}

// Next returns the next step's mask over cells cells.
func (f *FireMasks) Next(cells int) []bool { return f.src.next(cells) }

type pcgMasks struct {
	rng  *rand.Rand
	rate float64
}

func (p pcgMasks) next(cells int) []bool {
	m := make([]bool, cells)
	for i := range m {
		m[i] = p.rng.Float64() < p.rate
	}
	return m
}

type jaxMasks struct {
	key  jaxrand.Key
	rate float32
}

func (j *jaxMasks) next(cells int) []bool {
	var sub jaxrand.Key
	j.key, sub = j.key.Split2()
	return JAXFireMask(sub, float64(j.rate), cells)
}

// JAXFireMask is one fire mask of the JAX stream, the notebook's run_async
// with key: cell i of cells fires when jax.random.uniform(key, cells)[i] is
// at most rate, compared in float32.
func JAXFireMask(key jaxrand.Key, rate float64, cells int) []bool {
	m := make([]bool, cells)
	for i, u := range key.Uniform(cells) {
		m[i] = u <= float32(rate)
	}
	return m
}
