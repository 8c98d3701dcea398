package nn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dlca/dlca/autograd"
)

// Initialisations fill a tensor in place, as torch.nn.init. Fan-in and
// fan-out follow PyTorch: for a weight [out, in, k...], fan_in = in·∏k and
// fan_out = out·∏k. They panic on a tensor of fewer than 2 dimensions.

// Uniform fills t with values uniform in [lo, hi).
func Uniform(t *autograd.Tensor, lo, hi float64, rng *rand.Rand) {
	for i := range t.Len() {
		t.SetAt(i, lo+(hi-lo)*rng.Float64())
	}
}

// Normal fills t with values drawn from N(mean, std²).
func Normal(t *autograd.Tensor, mean, std float64, rng *rand.Rand) {
	for i := range t.Len() {
		t.SetAt(i, mean+std*rng.NormFloat64())
	}
}

// KaimingUniform is kaiming_uniform_ for a leaky-relu slope a (0 for relu):
// uniform in ±gain·√(3/fan_in) with gain = √(2/(1+a²)). With a = √5 it is
// torch.nn.Linear's and Conv's default (bound 1/√fan_in).
func KaimingUniform(t *autograd.Tensor, a float64, rng *rand.Rand) {
	fanIn, _ := fans(t)
	bound := math.Sqrt(2/(1+a*a)) * math.Sqrt(3/float64(fanIn))
	Uniform(t, -bound, bound, rng)
}

// KaimingNormal is kaiming_normal_: N(0, (gain/√fan_in)²).
func KaimingNormal(t *autograd.Tensor, a float64, rng *rand.Rand) {
	fanIn, _ := fans(t)
	Normal(t, 0, math.Sqrt(2/(1+a*a))/math.Sqrt(float64(fanIn)), rng)
}

// XavierUniform is xavier_uniform_: uniform in ±gain·√(6/(fan_in+fan_out)).
func XavierUniform(t *autograd.Tensor, gain float64, rng *rand.Rand) {
	fanIn, fanOut := fans(t)
	bound := gain * math.Sqrt(6/float64(fanIn+fanOut))
	Uniform(t, -bound, bound, rng)
}

// XavierNormal is xavier_normal_: N(0, gain²·2/(fan_in+fan_out)).
func XavierNormal(t *autograd.Tensor, gain float64, rng *rand.Rand) {
	fanIn, fanOut := fans(t)
	Normal(t, 0, gain*math.Sqrt(2/float64(fanIn+fanOut)), rng)
}

func fans(t *autograd.Tensor) (fanIn, fanOut int) {
	s := t.Shape()
	if len(s) < 2 {
		panic(fmt.Sprintf("nn: fan-in and fan-out need a tensor of at least 2 dimensions, got %v", s))
	}
	receptive := 1
	for _, k := range s[2:] {
		receptive *= k
	}
	return s[1] * receptive, s[0] * receptive
}
