package gpu

import (
	"math"

	"github.com/dlca/dlca/gates"
)

// CPU is the CPU twin of every kernel: the gates package's own CPU kernels
// where they exist, so that the GPU is held to the code the CPU engine runs.
type CPU struct{}

// Name returns "cpu".
func (CPU) Name() string { return "cpu" }

// GateCoeffs is gates.SoftCoeffs.
func (CPU) GateCoeffs(logits []float32) (probs, coeffs []float32, err error) {
	probs = make([]float32, len(logits))
	coeffs = make([]float32, len(logits)/gates.NumOps*4)
	gates.SoftCoeffs(probs, coeffs, logits)
	return probs, coeffs, nil
}

// GateForward is gates.ForwardSoft.
func (CPU) GateForward(x, coeffs []float32, w gates.Wiring, d gates.Dims) ([]float32, error) {
	y := make([]float32, d.YLen())
	gates.ForwardSoft(y, x, coeffs, w, d)
	return y, nil
}

// GateBackwardInput is gates.BackwardSoft's input gradient.
func (CPU) GateBackwardInput(x, gy, coeffs []float32, w gates.Wiring, d gates.Dims) ([]float32, error) {
	dx := make([]float32, d.XLen())
	gates.BackwardSoft(dx, nil, gy, x, coeffs, w, gates.NewReverseIndex(w, d.In), d)
	return dx, nil
}

// GateSums is gates.BackwardSoft's four sums.
func (CPU) GateSums(x, gy []float32, w gates.Wiring, d gates.Dims) ([]float32, error) {
	sums := make([]float64, 4*d.Gates())
	coeffs := make([]float32, 4*d.Gates()) // the sums do not depend on them
	gates.BackwardSoft(nil, sums, gy, x, coeffs, w, gates.NewReverseIndex(w, d.In), d)
	return to32(sums), nil
}

// GateLogitGrad is gates.LogitGrads.
func (CPU) GateLogitGrad(probs, sums []float32) ([]float32, error) {
	g := make([]float32, len(probs))
	gates.LogitGrads(g, probs, to64(sums))
	return g, nil
}

// ClipValue clamps each element.
func (CPU) ClipValue(g []float32, limit float32) ([]float32, error) {
	out := make([]float32, len(g))
	for i, v := range g {
		out[i] = min(max(v, -limit), limit)
	}
	return out, nil
}

// AdamW runs PyTorch's AdamW step in float32 on the host.
func (CPU) AdamW(cfg AdamWConfig, params []float32, grads [][]float32) ([]float32, error) {
	p := append([]float32(nil), params...)
	m := make([]float32, len(p))
	v := make([]float32, len(p))
	b1, b2 := float32(cfg.Beta1), float32(cfg.Beta2)
	for t, g := range grads {
		decay := float32(1 - cfg.LR*cfg.WeightDecay)
		stepSize := float32(cfg.LR / (1 - math.Pow(cfg.Beta1, float64(t+1))))
		bc2 := float32(math.Sqrt(1 - math.Pow(cfg.Beta2, float64(t+1))))
		for i := range p {
			m[i] = b1*m[i] + (1-b1)*g[i]
			v[i] = b2*v[i] + (1-b2)*g[i]*g[i]
			p[i] = p[i]*decay - stepSize*m[i]/(float32(math.Sqrt(float64(v[i])))/bc2+float32(cfg.Eps))
		}
	}
	return p, nil
}

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
