package gates

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"

	"github.com/dlca/dlca/autograd"
)

// Init says how a layer's logits start.
type Init struct {
	// PassThrough is the initial logit of op A (pass-through of input a);
	// the other logits start at 0.
	PassThrough float64
	// Gaussian adds independent N(0, Std^2) noise to every logit (Std 0
	// means 1), drawn from the layer's rng.
	Gaussian bool
	Std      float64
}

// DefaultInit is the CA notebook's initialisation: logit 10 on op A, 0 on the
// others, so each gate starts as a near-certain pass-through (p(A) = 0.9993).
func DefaultInit() Init { return Init{PassThrough: 10} }

// Layer is a layer of two-input gates with fixed wiring and learned logits,
// applied to every row of a batch. Groups share the wiring but have their own
// logits; the perception kernels of the cellular automaton are groups.
//
// Wiring must not change after the first Forward. A Layer is not safe for
// concurrent use.
type Layer struct {
	Name   string
	In     int    // inputs per row
	Out    int    // gates per group
	Groups int    // groups sharing Wiring, each with its own logits
	Wiring Wiring // len Out, indices in [0, In)
	// Logits is [Groups, Out, 16], float32 or float64, requiring a gradient.
	Logits *autograd.Tensor

	mu    sync.Mutex
	cache any // *softParams[F]: the coefficients of the last logits seen
}

// NewLayer returns a layer of groups*w.Len() gates over in inputs, with a copy
// of w and logits initialised by init (rng is used only for Gaussian noise and may then be
// nil). NewLayer panics if the wiring reads outside [0, in), groups < 1, or a
// Gaussian init has no rng.
func NewLayer(name string, in int, w Wiring, groups int, init Init, dtype autograd.DType, rng *rand.Rand) *Layer {
	if err := w.Check(in); err != nil {
		panic(layerError(name, err).Error())
	}
	if groups < 1 {
		panic(fmt.Sprintf("gates: layer %q: %d groups", name, groups))
	}
	if init.Gaussian && rng == nil {
		panic(fmt.Sprintf("gates: layer %q: Gaussian init needs an rng", name))
	}
	logits := autograd.Zeros(dtype, groups, w.Len(), NumOps)
	std := init.Std
	if std == 0 {
		std = 1
	}
	for i := range logits.Len() {
		v := 0.0
		if Op(i%NumOps) == A {
			v = init.PassThrough
		}
		if init.Gaussian {
			v += float64(std * rng.NormFloat64()) // rounded: no fused multiply-add
		}
		logits.SetAt(i, v)
	}
	logits.SetRequiresGrad(true)
	w = Wiring{A: slices.Clone(w.A), B: slices.Clone(w.B)}
	return &Layer{Name: name, In: in, Out: w.Len(), Groups: groups, Wiring: w, Logits: logits}
}

// Validate reports what is wrong with the layer, if anything: wiring out of
// range or of the wrong length, logits of the wrong shape, non-finite logits.
func (l *Layer) Validate() error {
	if l.Groups < 1 || l.In < 0 {
		return fmt.Errorf("gates: layer %q: %d groups over %d inputs", l.Name, l.Groups, l.In)
	}
	if l.Wiring.Len() != l.Out {
		return fmt.Errorf("gates: layer %q: wiring has %d gates, layer %d", l.Name, l.Wiring.Len(), l.Out)
	}
	if err := l.Wiring.Check(l.In); err != nil {
		return layerError(l.Name, err)
	}
	if err := l.checkLogitsShape(); err != nil {
		return err
	}
	for i := range l.Logits.Len() {
		if v := l.Logits.At(i); math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("gates: layer %q: logit %v at group %d gate %d op %v", l.Name, v, i/(NumOps*l.Out), i/NumOps%l.Out, Op(i%NumOps))
		}
	}
	return nil
}

// layerError puts the layer's name into an error from this package.
func layerError(name string, err error) error {
	return fmt.Errorf("gates: layer %q: %s", name, strings.TrimPrefix(err.Error(), "gates: "))
}

func (l *Layer) checkLogitsShape() error {
	if l.Logits == nil {
		return fmt.Errorf("gates: layer %q: no logits", l.Name)
	}
	if s := l.Logits.Shape(); !slices.Equal(s, []int{l.Groups, l.Out, NumOps}) {
		return fmt.Errorf("gates: layer %q: logits of shape %v, want [%d %d %d]", l.Name, s, l.Groups, l.Out, NumOps)
	}
	return nil
}

// Forward applies the layer to x, which is [rows, In] (every group reads the
// same row) or [rows, Groups, In] (group g reads x[r, g, :]), and returns
// y = [rows, Groups, Out], the gates' expected outputs under
// softmax(Logits). It is one fused autograd op with gradients for x and
// Logits, which runs the feature-major kernels (ForwardSoftFM,
// BackwardSoftFM: the one layout of a gate layer) between transposes.
// Forward panics, naming the layer, if x's shape or dtype does not fit, or
// if Validate fails (NaN logits, for instance). On a device other than the
// CPU (x and Logits both there) it runs the device's DeviceKernels; NaN
// logits then give NaN outputs rather than a panic, as the values stay on
// the device.
func (l *Layer) Forward(x *autograd.Tensor) *autograd.Tensor {
	d := l.dims(x)
	if x.Device() != autograd.CPU || l.Logits.Device() != autograd.CPU {
		return autograd.Apply(&deviceLayerOp{l: l, d: d, k: l.deviceKernels(x)}, x, l.Logits)
	}
	if l.Logits.DType() == autograd.Float64 {
		return autograd.Apply(&layerOp[float64]{l: l, d: d, p: softParamsOf[float64](l, l.Logits.Data64())}, x, l.Logits)
	}
	return autograd.Apply(&layerOp[float32]{l: l, d: d, p: softParamsOf[float32](l, l.Logits.Data32())}, x, l.Logits)
}

// dims checks x and the wiring against the layer and returns the shape of
// the application.
func (l *Layer) dims(x *autograd.Tensor) Dims {
	l.checkApply(x)
	s := x.Shape()
	switch {
	case len(s) == 2 && s[1] == l.In:
		return Dims{Rows: s[0], Groups: l.Groups, In: l.In, Out: l.Out, SharedInput: true}
	case len(s) == 3 && s[1] == l.Groups && s[2] == l.In:
		return Dims{Rows: s[0], Groups: l.Groups, In: l.In, Out: l.Out}
	}
	panic(fmt.Sprintf("gates: layer %q: Forward: input of shape %v, want [rows %d] or [rows %d %d]", l.Name, s, l.In, l.Groups, l.In))
}

// checkApply panics, naming the layer, if its logits or wiring are
// malformed or x's dtype is not the logits'.
func (l *Layer) checkApply(x *autograd.Tensor) {
	if err := l.checkLogitsShape(); err != nil {
		panic(err.Error())
	}
	if l.Wiring.Len() != l.Out {
		panic(fmt.Sprintf("gates: layer %q: wiring has %d gates, layer %d", l.Name, l.Wiring.Len(), l.Out))
	}
	if err := l.Wiring.Check(l.In); err != nil {
		panic(layerError(l.Name, err).Error())
	}
	if x.DType() != l.Logits.DType() {
		panic(fmt.Sprintf("gates: layer %q: Forward: %v input for %v logits", l.Name, x.DType(), l.Logits.DType()))
	}
}

// softParams are the probabilities and coefficients computed from one set of
// logits. They are never modified once made, so a pending backward pass may
// keep using them after the logits change.
type softParams[F Float] struct {
	logits []F // the logits they were computed from (a copy)
	probs  []F // [Groups, Out, 16]
	coeffs []F // [Groups, Out, 4]
}

// softParamsOf returns the coefficients of the layer's current logits,
// reusing the last ones when the logits have not changed: a rollout applies
// the same layer at every step, and the softmax would otherwise be
// recomputed each time. It panics, naming the gate, on a non-finite logit.
func softParamsOf[F Float](l *Layer, logits []F) *softParams[F] {
	l.mu.Lock()
	defer l.mu.Unlock()
	// NOTE: a NaN logit never compares equal, so it is caught below even
	// if the cache held the same NaN.
	if p, ok := l.cache.(*softParams[F]); ok && slices.Equal(p.logits, logits) {
		return p
	}
	p := &softParams[F]{
		logits: slices.Clone(logits),
		probs:  make([]F, len(logits)),
		coeffs: make([]F, len(logits)/NumOps*4),
	}
	if k := SoftCoeffs(p.probs, p.coeffs, logits); k >= 0 {
		panic(fmt.Sprintf("gates: layer %q: non-finite logit in group %d gate %d: %v", l.Name, k/l.Out, k%l.Out, logits[k*NumOps:(k+1)*NumOps]))
	}
	l.cache = p
	return p
}

// layerOp is the fused gate layer as an autograd custom op; inputs are x
// and the logits. Its tensors are row-major ([rows, ...]); it runs the
// feature-major kernels on transposed copies, keeping x's for the backward
// pass.
type layerOp[F Float] struct {
	l  *Layer
	d  Dims
	p  *softParams[F]
	xt []F // x, feature-major [inputs][rows]
}

func (op *layerOp[F]) Name() string { return "gates.Layer(" + op.l.Name + ")" }

func (op *layerOp[F]) Forward(in []*autograd.Tensor) *autograd.Tensor {
	d := op.d
	op.xt = make([]F, d.XLen())
	transposeInto(op.xt, data[F](in[0]), d.Rows, d.inputs())
	yt := make([]F, d.YLen())
	ForwardSoftFM(yt, op.xt, op.p.coeffs, op.l.Wiring, d)
	out := autograd.Zeros(in[0].DType(), d.Rows, d.Groups, d.Out)
	transposeInto(data[F](out), yt, d.Gates(), d.Rows)
	return out
}

func (op *layerOp[F]) Backward(g *autograd.Tensor, in []*autograd.Tensor, _ *autograd.Tensor) []*autograd.Tensor {
	x, logits := in[0], in[1]
	if !x.RequiresGrad() && !logits.RequiresGrad() {
		return []*autograd.Tensor{nil, nil}
	}
	d := op.d
	var sums []float64
	if logits.RequiresGrad() {
		sums = make([]float64, 4*d.Gates())
	}
	gt, dxt := make([]F, d.YLen()), make([]F, d.XLen())
	transposeInto(gt, data[F](g), d.Rows, d.Gates())
	BackwardSoftFM(dxt, sums, gt, op.xt, op.p.coeffs, op.l.Wiring, d)
	var dx, dlogits *autograd.Tensor
	if x.RequiresGrad() {
		dx = autograd.ZerosLike(x)
		transposeInto(data[F](dx), dxt, d.inputs(), d.Rows)
	}
	if sums != nil {
		dlogits = autograd.ZerosLike(logits)
		LogitGrads(data[F](dlogits), op.p.probs, sums)
	}
	return []*autograd.Tensor{dx, dlogits}
}

// data returns t's storage as []F; F must match t's dtype.
func data[F Float](t *autograd.Tensor) []F {
	var v any
	if t.DType() == autograd.Float64 {
		v = t.Data64()
	} else {
		v = t.Data32()
	}
	return v.([]F)
}
