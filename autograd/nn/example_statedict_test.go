package nn_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/nn"
)

// Save a model in PyTorch's torch.save format and load it in PyTorch,
// which names its tensors the same way:
//
//	m = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(),
//	                        torch.nn.BatchNorm1d(8), torch.nn.Linear(8, 2))
//	m.load_state_dict(torch.load("model.pt", weights_only=True))
//
// nn.SaveSafetensors writes the same state dict as safetensors
// (safetensors.torch.load_file reads it); nn.LoadTorch and
// nn.LoadSafetensors read either back, from Go or from torch.save.
func ExampleSaveTorch() {
	rng := rand.New(rand.NewPCG(1, 0))
	f := autograd.Float32
	model := nn.NewSequential(nn.NewLinear(4, 8, true, f, rng), nn.ReLU,
		nn.NewBatchNorm1d(8, nn.DefaultBatchNorm(), f), nn.NewLinear(8, 2, true, f, rng))

	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "model.pt")
	if err := nn.SaveTorch(path, model); err != nil {
		panic(err)
	}

	// Loading checks every name, shape and element type.
	if err := nn.LoadTorch(path, model); err != nil {
		panic(err)
	}
	sd, err := nn.GetStateDict(model)
	if err != nil {
		panic(err)
	}
	for _, e := range sd {
		fmt.Println(e.Name, e.DType, e.Shape)
	}
	// Output:
	// 0.weight F32 [8 4]
	// 0.bias F32 [8]
	// 2.weight F32 [8]
	// 2.bias F32 [8]
	// 2.running_mean F32 [8]
	// 2.running_var F32 [8]
	// 2.num_batches_tracked I64 []
	// 3.weight F32 [2 8]
	// 3.bias F32 [2]
}
