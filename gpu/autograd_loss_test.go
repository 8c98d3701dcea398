package gpu

import (
	"math/rand/v2"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/nn"
)

// TestLossParity holds every loss of autograd/nn on the GPU, with the
// gradients of its prediction and target, to the CPU: each reduction, the
// class losses with weights, ignored targets, label smoothing and extra
// dimensions, the binary ones with weights.
func TestLossParity(t *testing.T) {
	targets := []int{2, 0, 4, 4, 1, 3, 0}
	spatial := make([]int, 2*5)
	for i := range spatial {
		spatial[i] = i % 3
	}
	weight := randTensor(7, 0.5, 2, 5)
	onGPU := func(x *autograd.Tensor) *autograd.Tensor {
		if x.Device() == autograd.CPU {
			return weight
		}
		w, err := weight.To(x.Device())
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	// probabilities keeps BCELoss's input and target inside (0, 1).
	probabilities := func(x *autograd.Tensor) *autograd.Tensor {
		return autograd.Sigmoid(x)
	}
	var cases []opCase
	for _, r := range []nn.Reduction{nn.ReduceMean, nn.ReduceSum, nn.ReduceNone} {
		cases = append(cases,
			opCase{"MSELoss", [][]int{{7, 5}, {7, 5}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return nn.MSELoss(xs[0], xs[1], r) }},
			opCase{"L1Loss", [][]int{{63}, {63}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return nn.L1Loss(xs[0], xs[1], r) }},
			opCase{"HuberLoss", [][]int{{65}, {65}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return nn.HuberLoss(xs[0], xs[1], 0.7, r) }},
			opCase{"SmoothL1Loss", [][]int{{3, 7}, {3, 7}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
				return nn.SmoothL1Loss(xs[0], xs[1], 0.5, r)
			}},
			opCase{"BCELoss", [][]int{{7, 5}, {7, 5}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
				return nn.BCELossWith(probabilities(xs[0]), probabilities(xs[1]), nn.BinaryOptions{Reduction: r, Weight: onGPU(xs[0])})
			}},
			opCase{"BCEWithLogitsLoss", [][]int{{7, 5}, {7, 5}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
				return nn.BCEWithLogitsLossWith(xs[0], probabilities(xs[1]), nn.BinaryOptions{Reduction: r, PosWeight: onGPU(xs[0])})
			}},
			opCase{"CrossEntropyLoss", [][]int{{7, 5}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
				return nn.CrossEntropyLoss(xs[0], targets, r)
			}},
			opCase{"CrossEntropyLossWith", [][]int{{7, 5}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
				return nn.CrossEntropyLossWith(xs[0], targets, nn.ClassOptions{Reduction: r, Weight: onGPU(xs[0]),
					Ignore: true, IgnoreIndex: 4, LabelSmoothing: 0.1})
			}},
			opCase{"CrossEntropyLossSpatial", [][]int{{2, 3, 5}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
				return nn.CrossEntropyLoss(xs[0], spatial, r)
			}},
			opCase{"NLLLoss", [][]int{{7, 5}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
				return nn.NLLLossWith(autograd.LogSoftmax(xs[0], 1), targets, nn.ClassOptions{Reduction: r, Weight: onGPU(xs[0])})
			}},
			opCase{"CrossEntropyLossProbs", [][]int{{7, 5}, {7, 5}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
				return nn.CrossEntropyLossProbs(xs[0], autograd.Softmax(xs[1], 1), nn.ClassOptions{Reduction: r, LabelSmoothing: 0.2})
			}},
		)
	}
	checkCases(t, tolReduce, cases)
}

// TestEmbeddingParity looks rows up on both devices, with a padding row
// that gets no gradient (its mask is a constant on the weight's device).
func TestEmbeddingParity(t *testing.T) {
	e := nn.NewEmbedding(7, 5, autograd.Float32, rand.New(rand.NewPCG(1, 2))).WithPadding(2)
	indices := []int{6, 2, 0, 2, 3, 6}
	checkCases(t, tolElementwise, []opCase{
		{"Embedding", [][]int{{7, 5}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
			e.Weight = xs[0]
			return e.Lookup(indices, 2, 3)
		}},
	})
}
