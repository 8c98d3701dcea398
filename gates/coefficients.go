package gates

import (
	"fmt"

	"github.com/dlca/dlca/autograd"
)

// CoeffKernels is the kernel set a device adds to DeviceKernels for a gate
// layer split at its coefficients (Coefficients, HardCoefficients,
// ForwardFMWith): probs [Groups, Out, 16] and coeffs, hard and dcoeffs
// [Groups, Out, 4]; x [In][Rows] or [Groups*In][Rows], y and g
// [Groups*Out][Rows], feature-major (nothing transposed).
type CoeffKernels interface {
	// GateCoefficients sets probs to softmax(logits) and coeffs to the
	// relaxed coefficients.
	GateCoefficients(probs, coeffs, logits *autograd.Tensor)
	// GateCoefficientsGrad sets dlogits to the logits' gradient for the
	// coefficients' gradient dcoeffs (LogitGrads).
	GateCoefficientsGrad(dlogits, probs, dcoeffs *autograd.Tensor)
	// GateHardCoefficients sets hard to every gate's coefficients one-hot
	// on its most probable op (HardOps, ties to the lowest op).
	GateHardCoefficients(hard, logits *autograd.Tensor)
	// GateLayerCoeffs sets y to the layer of wiring w with coefficients
	// coeffs applied to x.
	GateLayerCoeffs(y, x, coeffs *autograd.Tensor, w Wiring, d Dims)
	// GateLayerCoeffsBackward sets dx and dcoeffs (either may be nil) for
	// the output gradient g; dcoeffs are the four per-gate sums.
	GateLayerCoeffsBackward(dx, dcoeffs, g, x, coeffs *autograd.Tensor, w Wiring, d Dims)
	// GateLayerCoeffsBackwardInto is GateLayerCoeffsBackward with the four
	// per-gate sums added into dcoeffs (not nil) instead of set: the
	// gradient of coefficients that several applications share, summed in
	// place (ForwardFMInto).
	GateLayerCoeffsBackwardInto(dx, dcoeffs, g, x, coeffs *autograd.Tensor, w Wiring, d Dims)
}

// Coefficients returns the layer's relaxed coefficients [Groups, Out, 4]
// (softmax of the logits, then the table) as an op of the logits whose
// gradient, the four per-gate sums that ForwardFMWith passes back from every
// application, reaches the logits through the softmax once (LogitGrads):
// a rollout computes them once and every step reads them. It panics,
// naming the gate, on a non-finite logit on the CPU.
func (l *Layer) Coefficients() *autograd.Tensor {
	if err := l.checkLogitsShape(); err != nil {
		panic(err.Error())
	}
	if dev := l.Logits.Device(); dev != autograd.CPU {
		k, ok := dev.(CoeffKernels)
		if !ok {
			panic(fmt.Sprintf("gates: layer %q: Coefficients on %v, which has no gates.CoeffKernels", l.Name, dev))
		}
		return autograd.Apply(&deviceCoeffOp{l: l, k: k}, l.Logits)
	}
	if l.Logits.DType() == autograd.Float64 {
		return autograd.Apply(&coeffOp[float64]{layer: l.Name}, l.Logits)
	}
	return autograd.Apply(&coeffOp[float32]{layer: l.Name}, l.Logits)
}

// HardCoefficients returns every gate's coefficients one-hot on its most
// probable op (HardOps), [Groups, Out, 4], with no gradient: the circuit's
// gates in the soft kernels' form, which a straight-through rollout steps
// forward with. On a device they are computed there from the logits.
func (l *Layer) HardCoefficients() *autograd.Tensor {
	if err := l.checkLogitsShape(); err != nil {
		panic(err.Error())
	}
	if dev := l.Logits.Device(); dev != autograd.CPU {
		k, ok := dev.(CoeffKernels)
		if !ok {
			panic(fmt.Sprintf("gates: layer %q: HardCoefficients on %v, which has no gates.CoeffKernels", l.Name, dev))
		}
		hard := autograd.Empty(dev, l.Logits.DType(), l.Groups, l.Out, 4)
		k.GateHardCoefficients(hard, l.Logits.Detach())
		return hard
	}
	ops := l.HardOps()
	if l.Logits.DType() == autograd.Float64 {
		return autograd.New64(HardCoeffs[float64](ops), l.Groups, l.Out, 4)
	}
	return autograd.New(HardCoeffs[float32](ops), l.Groups, l.Out, 4)
}

// ForwardFMWith is Forward on feature-major tensors, the kernels' layout,
// with the layer's coefficients given (Coefficients' result): x is
// [In, rows] (every group reads the same features) or [Groups, In, rows],
// y [Groups, Out, rows], so a network of layers applied this way
// transposes nothing between them; the gradients go to x and to coeffs (the
// four per-gate sums), not to the logits directly. With hard
// not nil (HardCoefficients) the forward pass steps with hard's
// coefficients and the backward pass takes coeffs' at those activations
// (straight-through).
func (l *Layer) ForwardFMWith(x, coeffs, hard *autograd.Tensor) *autograd.Tensor {
	d := l.dimsFM(x)
	if x.Device() != autograd.CPU || coeffs.Device() != autograd.CPU {
		k, ok := x.Device().(CoeffKernels)
		if !ok || coeffs.Device() != x.Device() {
			panic(fmt.Sprintf("gates: layer %q: ForwardFMWith: input on %v, coefficients on %v (one device with gates.CoeffKernels)", l.Name, x.Device(), coeffs.Device()))
		}
		return autograd.Apply(&deviceWithOp{l: l, d: d, k: k, hard: hard}, x, coeffs)
	}
	if x.DType() == autograd.Float64 {
		return autograd.Apply(&withOp[float64]{l: l, d: d, hard: hard}, x, coeffs)
	}
	return autograd.Apply(&withOp[float32]{l: l, d: d, hard: hard}, x, coeffs)
}

// ForwardFMInto is ForwardFMWith whose backward pass adds the coefficients'
// gradient (the four per-gate sums) into dcoeffs instead of passing it back
// through the graph: dcoeffs is a tensor of zeros of coeffs' shape on x's
// device, which the caller made and later hands on as the coefficients'
// gradient (dlca's GraphRolloutWith ties it to them at the rollout's
// start). The steps of a rollout, all reading one layer's coefficients,
// then sum their gradients in place, in the order their backward passes
// run, with no addition per step (on a device the sums kernel adds into
// dcoeffs' buffer, in the same dispatch as the input gradient). coeffs
// and hard get no gradient through this op, and the sums are added only
// when the backward pass reaches it, that is when x requires grad.
func (l *Layer) ForwardFMInto(x, coeffs, hard, dcoeffs *autograd.Tensor) *autograd.Tensor {
	d := l.dimsFM(x)
	coeffs = coeffs.Detach()
	if x.Device() != autograd.CPU || coeffs.Device() != autograd.CPU || dcoeffs.Device() != autograd.CPU {
		k, ok := x.Device().(CoeffKernels)
		if !ok || coeffs.Device() != x.Device() || dcoeffs.Device() != x.Device() {
			panic(fmt.Sprintf("gates: layer %q: ForwardFMInto: input on %v, coefficients on %v, their gradient on %v (one device with gates.CoeffKernels)", l.Name, x.Device(), coeffs.Device(), dcoeffs.Device()))
		}
		return autograd.Apply(&deviceIntoOp{with: deviceWithOp{l: l, d: d, k: k, hard: hard}, coeffs: coeffs, dcoeffs: dcoeffs}, x)
	}
	if x.DType() == autograd.Float64 {
		return autograd.Apply(&intoOp[float64]{with: withOp[float64]{l: l, d: d, hard: hard}, coeffs: coeffs, dcoeffs: dcoeffs}, x)
	}
	return autograd.Apply(&intoOp[float32]{with: withOp[float32]{l: l, d: d, hard: hard}, coeffs: coeffs, dcoeffs: dcoeffs}, x)
}

// intoOp is ForwardFMInto on the CPU; its one input is x.
type intoOp[F Float] struct {
	with            withOp[F]
	coeffs, dcoeffs *autograd.Tensor
}

func (op *intoOp[F]) Name() string { return op.with.Name() }

func (op *intoOp[F]) Forward(in []*autograd.Tensor) *autograd.Tensor {
	return op.with.Forward([]*autograd.Tensor{in[0], op.coeffs})
}

func (op *intoOp[F]) Backward(g *autograd.Tensor, in []*autograd.Tensor, _ *autograd.Tensor) []*autograd.Tensor {
	x := in[0]
	sums := make([]float64, 4*op.with.d.Gates())
	dx := autograd.ZerosLike(x)
	BackwardSoftFM(data[F](dx), sums, data[F](g), data[F](x), data[F](op.coeffs), op.with.l.Wiring, op.with.d)
	acc := data[F](op.dcoeffs)
	for i, v := range sums {
		acc[i] += F(v) // rounded as withOp's gradient is before autograd adds it
	}
	return []*autograd.Tensor{dx}
}

// deviceIntoOp is ForwardFMInto on a device; its one input is x.
type deviceIntoOp struct {
	with            deviceWithOp
	coeffs, dcoeffs *autograd.Tensor
}

func (op *deviceIntoOp) Name() string { return op.with.Name() }

func (op *deviceIntoOp) Forward(in []*autograd.Tensor) *autograd.Tensor {
	return op.with.Forward([]*autograd.Tensor{in[0], op.coeffs})
}

func (op *deviceIntoOp) Backward(g *autograd.Tensor, in []*autograd.Tensor, _ *autograd.Tensor) []*autograd.Tensor {
	x := in[0]
	dx := autograd.Empty(x.Device(), x.DType(), x.Shape()...)
	op.with.k.GateLayerCoeffsBackwardInto(dx, op.dcoeffs, g, x, op.coeffs, op.with.l.Wiring, op.with.d)
	return []*autograd.Tensor{dx}
}

// coeffOp is Coefficients on the CPU.
type coeffOp[F Float] struct {
	layer string
	probs []F
}

func (op *coeffOp[F]) Name() string { return "gates.coefficients(" + op.layer + ")" }

func (op *coeffOp[F]) Forward(in []*autograd.Tensor) *autograd.Tensor {
	s := in[0].Shape()
	out := autograd.Zeros(in[0].DType(), s[0], s[1], 4)
	op.probs = make([]F, in[0].Len())
	if k := SoftCoeffs(op.probs, data[F](out), data[F](in[0])); k >= 0 {
		panic(fmt.Sprintf("gates: layer %s: non-finite logit at gate %d (training diverged?)", op.layer, k))
	}
	return out
}

func (op *coeffOp[F]) Backward(grad *autograd.Tensor, in []*autograd.Tensor, _ *autograd.Tensor) []*autograd.Tensor {
	d := autograd.ZerosLike(in[0])
	LogitGrads(data[F](d), op.probs, grad.Float64s())
	return []*autograd.Tensor{d}
}

// deviceCoeffOp is Coefficients on a device.
type deviceCoeffOp struct {
	l     *Layer
	k     CoeffKernels
	probs *autograd.Tensor
}

func (op *deviceCoeffOp) Name() string { return "gates.coefficients(" + op.l.Name + ")" }

func (op *deviceCoeffOp) Forward(in []*autograd.Tensor) *autograd.Tensor {
	logits := in[0]
	op.probs = autograd.Empty(logits.Device(), logits.DType(), logits.Shape()...)
	coeffs := autograd.Empty(logits.Device(), logits.DType(), op.l.Groups, op.l.Out, 4)
	op.k.GateCoefficients(op.probs, coeffs, logits)
	return coeffs
}

func (op *deviceCoeffOp) Backward(grad *autograd.Tensor, in []*autograd.Tensor, _ *autograd.Tensor) []*autograd.Tensor {
	d := autograd.Empty(in[0].Device(), in[0].DType(), in[0].Shape()...)
	op.k.GateCoefficientsGrad(d, op.probs, grad)
	return []*autograd.Tensor{d}
}

// withOp is ForwardFMWith on the CPU; inputs x and the coefficients.
type withOp[F Float] struct {
	l    *Layer
	d    Dims
	hard *autograd.Tensor
}

func (op *withOp[F]) Name() string { return "gates.Layer(" + op.l.Name + ")" }

func (op *withOp[F]) Forward(in []*autograd.Tensor) *autograd.Tensor {
	coeffs := in[1]
	if op.hard != nil {
		coeffs = op.hard
	}
	y := autograd.Zeros(in[0].DType(), op.d.Groups, op.d.Out, op.d.Rows)
	ForwardSoftFM(data[F](y), data[F](in[0]), data[F](coeffs), op.l.Wiring, op.d)
	return y
}

func (op *withOp[F]) Backward(g *autograd.Tensor, in []*autograd.Tensor, _ *autograd.Tensor) []*autograd.Tensor {
	x, coeffs := in[0], in[1]
	var sums []float64
	if coeffs.RequiresGrad() {
		sums = make([]float64, 4*op.d.Gates())
	}
	dx := autograd.ZerosLike(x)
	BackwardSoftFM(data[F](dx), sums, data[F](g), data[F](x), data[F](coeffs), op.l.Wiring, op.d)
	var dcoeffs *autograd.Tensor
	if sums != nil {
		dcoeffs = autograd.ZerosLike(coeffs)
		for i, v := range sums {
			data[F](dcoeffs)[i] = F(v)
		}
	}
	if !x.RequiresGrad() {
		dx = nil
	}
	return []*autograd.Tensor{dx, dcoeffs}
}

// deviceWithOp is ForwardFMWith on a device.
type deviceWithOp struct {
	l    *Layer
	d    Dims
	k    CoeffKernels
	hard *autograd.Tensor
}

func (op *deviceWithOp) Name() string { return "gates.Layer(" + op.l.Name + ")" }

func (op *deviceWithOp) Forward(in []*autograd.Tensor) *autograd.Tensor {
	x, coeffs := in[0], in[1]
	if op.hard != nil {
		coeffs = op.hard
	}
	y := autograd.Empty(x.Device(), x.DType(), op.d.Groups, op.d.Out, op.d.Rows)
	op.k.GateLayerCoeffs(y, x, coeffs, op.l.Wiring, op.d)
	return y
}

func (op *deviceWithOp) Backward(g *autograd.Tensor, in []*autograd.Tensor, _ *autograd.Tensor) []*autograd.Tensor {
	x, coeffs := in[0], in[1]
	var dx, dcoeffs *autograd.Tensor
	if x.RequiresGrad() {
		dx = autograd.Empty(x.Device(), x.DType(), x.Shape()...)
	}
	if coeffs.RequiresGrad() {
		dcoeffs = autograd.Empty(x.Device(), x.DType(), coeffs.Shape()...)
	}
	if dx != nil || dcoeffs != nil {
		op.k.GateLayerCoeffsBackward(dx, dcoeffs, g, x, coeffs, op.l.Wiring, op.d)
	}
	return []*autograd.Tensor{dx, dcoeffs}
}

// dimsFM is dims for ForwardFMWith's feature-major x.
func (l *Layer) dimsFM(x *autograd.Tensor) Dims {
	l.checkApply(x)
	s := x.Shape()
	switch {
	case len(s) == 2 && s[0] == l.In:
		return Dims{Rows: s[1], Groups: l.Groups, In: l.In, Out: l.Out, SharedInput: true}
	case len(s) == 3 && s[0] == l.Groups && s[1] == l.In:
		return Dims{Rows: s[2], Groups: l.Groups, In: l.In, Out: l.Out}
	}
	panic(fmt.Sprintf("gates: layer %q: ForwardFMWith: input of shape %v, want [%d rows] or [%d %d rows]", l.Name, s, l.In, l.Groups, l.In))
}
