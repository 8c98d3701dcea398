package gpu

import (
	"fmt"
	"slices"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/optim"
	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/gates"
)

// CPUTwin is the CPU twin of every kernel: the very functions of the gates,
// dlca, bptt and optim packages that the CPU engine runs (the kernels use
// the layouts the CPU engine trains on, feature-major), so the GPU is held
// to the CPU engine's code; the engine tests hold the whole iteration to
// the CPU engine's.
type CPUTwin struct{}

// Name returns "cpu".
func (CPUTwin) Name() string { return "cpu" }

// GateCoeffs is gates.SoftCoeffs.
func (CPUTwin) GateCoeffs(logits []float32) (probs, coeffs []float32, err error) {
	probs = make([]float32, len(logits))
	coeffs = make([]float32, len(logits)/gates.NumOps*4)
	gates.SoftCoeffs(probs, coeffs, logits)
	return probs, coeffs, nil
}

// GateHardCoeffs is gates.Layer.HardOps, each op's row of
// gates.CoeffTable: what dlca's straight-through rollout steps forward with.
func (CPUTwin) GateHardCoeffs(logits []float32) ([]float32, error) {
	n := len(logits) / gates.NumOps
	l := &gates.Layer{Name: "hard", Groups: 1, Out: n, Logits: autograd.New(append([]float32(nil), logits...), 1, n, gates.NumOps)}
	return gates.HardCoeffs[float32](l.HardOps()), nil
}

// GateForward is gates.ForwardSoftFM.
func (CPUTwin) GateForward(x, coeffs []float32, w gates.Wiring, d gates.Dims) ([]float32, error) {
	y := make([]float32, d.YLen())
	gates.ForwardSoftFM(y, x, coeffs, w, d)
	return y, nil
}

// GateBackwardInput is gates.BackwardSoftFM's input gradient.
func (CPUTwin) GateBackwardInput(x, gy, coeffs []float32, w gates.Wiring, d gates.Dims) ([]float32, error) {
	dx := make([]float32, d.XLen())
	gates.BackwardSoftFM(dx, nil, gy, x, coeffs, w, d)
	return dx, nil
}

// GateSums is gates.BackwardSoftFM's four sums.
func (CPUTwin) GateSums(x, gy []float32, w gates.Wiring, d gates.Dims) ([]float32, error) {
	sums := make([]float64, 4*d.Gates())
	coeffs := make([]float32, 4*d.Gates()) // the sums do not depend on them
	gates.BackwardSoftFM(make([]float32, d.XLen()), sums, gy, x, coeffs, w, d)
	return to32(sums), nil
}

// GateBackward is gates.BackwardSoftFM: the input gradient, then the sums.
func (CPUTwin) GateBackward(x, gy, coeffs []float32, w gates.Wiring, d gates.Dims) ([]float32, error) {
	dx := make([]float32, d.XLen())
	sums := make([]float64, 4*d.Gates())
	gates.BackwardSoftFM(dx, sums, gy, x, coeffs, w, d)
	return append(dx, to32(sums)...), nil
}

// GateLogitGrad is gates.LogitGrads.
func (CPUTwin) GateLogitGrad(probs, sums []float32) ([]float32, error) {
	g := make([]float32, len(probs))
	gates.LogitGrads(g, probs, to64(sums))
	return g, nil
}

// ClipValue is optim.ClipGradValue.
func (CPUTwin) ClipValue(g []float32, limit float32) ([]float32, error) {
	p := autograd.Zeros(autograd.Float32, len(g))
	p.SetGrad(autograd.New(append([]float32(nil), g...), len(g)))
	optim.ClipGradValue([]*autograd.Tensor{p}, float64(limit))
	return p.Grad().Data32(), nil
}

// AdamW is optim.NewAdamW's Step, once per gradient.
func (CPUTwin) AdamW(cfg AdamWConfig, params []float32, grads [][]float32) ([]float32, error) {
	p := autograd.New(append([]float32(nil), params...), len(params)).SetRequiresGrad(true)
	o := optim.NewAdamW([]*autograd.Tensor{p}, cfg)
	for _, g := range grads {
		p.SetGrad(autograd.New(append([]float32(nil), g...), len(g)))
		if err := o.Step(); err != nil {
			return nil, fmt.Errorf("gpu: CPU AdamW: %v", err)
		}
	}
	return p.Data32(), nil
}

// PerceptionGather is dlca.GatherNeighbourhood.
func (CPUTwin) PerceptionGather(state []float32, g Grid) ([]float32, error) {
	nb := make([]float32, dlca.NeighbourhoodSize*g.Len())
	dlca.GatherNeighbourhood(nb, state, g)
	return nb, nil
}

// PerceptionGatherBackward is dlca.AddNeighbourhoodGrad on a zero dstate.
func (CPUTwin) PerceptionGatherBackward(dnb []float32, g Grid) ([]float32, error) {
	dstate := make([]float32, g.Len())
	dlca.AddNeighbourhoodGrad(dstate, dnb, g)
	return dstate, nil
}

// UpdateInput is dlca.AssembleUpdateInput.
func (CPUTwin) UpdateInput(state, percep []float32, c Concat) ([]float32, error) {
	uin := make([]float32, c.Cells*c.Width())
	dlca.AssembleUpdateInput(uin, state, percep, c.Cells, c.Channels, c.Kernels, c.Bits)
	return uin, nil
}

// UpdateInputBackward is dlca.SplitUpdateInputGrad on a zero dstate.
func (CPUTwin) UpdateInputBackward(duin []float32, c Concat) (dstate, dpercep []float32, err error) {
	dstate = make([]float32, c.Cells*c.Channels)
	dpercep = make([]float32, c.Cells*c.Channels*c.Kernels*c.Bits)
	dlca.SplitUpdateInputGrad(dstate, dpercep, duin, c.Cells, c.Channels, c.Kernels, c.Bits)
	return dstate, dpercep, nil
}

// FireMask is dlca.SelectFired.
func (CPUTwin) FireMask(fire, state, upd []float32, g Grid) ([]float32, error) {
	next := make([]float32, g.Len())
	dlca.SelectFired(next, state, upd, fired(fire), g.Cells(), g.Channels)
	return next, nil
}

// FireMaskBackward is dlca.SplitFiredGrad.
func (CPUTwin) FireMaskBackward(fire, dnext []float32, g Grid) (dupd, dstate []float32, err error) {
	dupd, dstate = make([]float32, g.Len()), make([]float32, g.Len())
	dlca.SplitFiredGrad(dupd, dstate, dnext, fired(fire), g.Cells(), g.Channels)
	return dupd, dstate, nil
}

// fired turns the kernels' fire mask (1 or 0 per cell) into dlca's.
func fired(fire []float32) []bool {
	f := make([]bool, len(fire))
	for i, v := range fire {
		f[i] = v != 0
	}
	return f
}

// Loss is bptt.Loss (the CPU engine's loss) and its gradient, on the loss
// channels, those of weight 1; it panics on another weight than 0 or 1.
func (CPUTwin) Loss(weight, state, target []float32, g Grid) (float32, []float32, error) {
	var channels []int
	for c, w := range weight {
		switch w {
		case 1:
			channels = append(channels, c)
		case 0:
		default:
			panic(fmt.Sprintf("gpu: CPU Loss: weight %v of channel %d, want 0 or 1", w, c))
		}
	}
	shape := []int{g.Batch, g.Height, g.Width, g.Channels}
	s := autograd.New(slices.Clone(state), shape...).SetRequiresGrad(true)
	t := autograd.IndexSelect(autograd.New(slices.Clone(target), shape...), 3, channels)
	loss := bptt.Loss(s, t, channels)
	if err := loss.Backward(); err != nil {
		return 0, nil, fmt.Errorf("gpu: CPU Loss: %v", err)
	}
	return float32(loss.Item()), s.Grad().Data32(), nil
}

// StatePenaltyGrad is the gradient of weight times bptt.StatePenalty (the
// CPU engine's penalty) added to dstate.
func (CPUTwin) StatePenaltyGrad(state, dstate []float32, weight float32) ([]float32, error) {
	s := autograd.New(slices.Clone(state), len(state)).SetRequiresGrad(true)
	if err := autograd.MulScalar(bptt.StatePenalty(s), float64(weight)).Backward(); err != nil {
		return nil, fmt.Errorf("gpu: CPU StatePenaltyGrad: %v", err)
	}
	out := s.Grad().Data32()
	for i, d := range dstate {
		out[i] += d
	}
	return out, nil
}
