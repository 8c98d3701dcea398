package gpu

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/nn"
)

// TestStateDictOnDevice saves a model that lives on the GPU (read back)
// and loads a state dict into it (written in place there): the tensors
// stay the same *Tensor, on the device, holding the loaded values.
func TestStateDictOnDevice(t *testing.T) {
	dev := testAutograd(t)
	build := func(seed uint64) *nn.Sequential {
		rng := rand.New(rand.NewPCG(seed, 1))
		return nn.NewSequential(nn.NewLinear(3, 4, true, autograd.Float32, rng), nn.NewBatchNorm1d(4, nn.DefaultBatchNorm(), autograd.Float32))
	}
	src, dst := build(1), build(2)
	want, err := nn.GetStateDict(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := nn.To(src, dev); err != nil {
		t.Fatal(err)
	}
	got, err := nn.GetStateDict(src)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range want {
		if got[i].Name != e.Name || !bytes.Equal(got[i].Data, e.Data) {
			t.Errorf("%s read back from the device differs", e.Name)
		}
	}
	if err := nn.To(dst, dev); err != nil {
		t.Fatal(err)
	}
	weight := dst.Layers[0].(*nn.Linear).Weight
	if err := nn.LoadStateDict(dst, want); err != nil {
		t.Fatal(err)
	}
	if dst.Layers[0].(*nn.Linear).Weight != weight || weight.Device() != autograd.Device(dev) {
		t.Fatal("loading replaced the weight or moved it off the device")
	}
	loaded, err := nn.GetStateDict(dst)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range want {
		if !bytes.Equal(loaded[i].Data, e.Data) {
			t.Errorf("%s after loading on the device differs", e.Name)
		}
	}
}
