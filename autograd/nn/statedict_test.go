package nn

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/nn/tensorfile"
)

// fixtureModel is the model of testdata/torch/sequential.*:
// Sequential(Linear(3, 2), ReLU(), BatchNorm1d(2)).
func fixtureModel(dtype autograd.DType) *Sequential {
	rng := rand.New(rand.NewPCG(1, 2))
	return NewSequential(NewLinear(3, 2, true, dtype, rng), ReLU, NewBatchNorm1d(2, DefaultBatchNorm(), dtype))
}

// fixtureValues are the values generate.py sets, stated here again.
var fixtureValues = map[string][]float64{
	"0.weight":              {-0.5, -0.25, 0, 0.25, 0.5, 0.75}, // i/4 - 1/2
	"0.bias":                {0.125, -0.375},
	"2.weight":              {1.5, -2},
	"2.bias":                {0.25, 0.5},
	"2.running_mean":        {0.5, -0.25},
	"2.running_var":         {2, 0.75},
	"2.num_batches_tracked": {7},
}

var fixtureNames = []string{"0.weight", "0.bias", "2.weight", "2.bias", "2.running_mean", "2.running_var", "2.num_batches_tracked"}

// checkFixtureModel checks that m holds fixtureValues.
func checkFixtureModel(t *testing.T, m *Sequential) {
	t.Helper()
	lin, bn := m.Layers[0].(*Linear), m.Layers[2].(*BatchNorm)
	got := map[string]*autograd.Tensor{
		"0.weight": lin.Weight, "0.bias": lin.Bias, "2.weight": bn.Weight, "2.bias": bn.Bias,
		"2.running_mean": bn.RunningMean, "2.running_var": bn.RunningVar, "2.num_batches_tracked": bn.NumBatchesTracked,
	}
	for name, want := range fixtureValues {
		if v := got[name].Float64s(); !slices.Equal(v, want) {
			t.Errorf("%s = %v, want %v", name, v, want)
		}
	}
}

func TestStateDictNamesAsPyTorch(t *testing.T) {
	sd, err := GetStateDict(fixtureModel(autograd.Float32))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sd.Names(), fixtureNames) {
		t.Fatalf("names %v, want %v", sd.Names(), fixtureNames)
	}
	e, _ := sd.Get("2.num_batches_tracked")
	if e.DType != tensorfile.I64 || len(e.Shape) != 0 {
		t.Errorf("num_batches_tracked is %s %v, want PyTorch's 0-d I64", e.DType, e.Shape)
	}
}

// encoderModel is a user's module holding modules in fields: PyTorch names
// them by attribute, dotted.
type encoderModel struct {
	Encoder *Sequential
	Head    *Linear
	Scale   *autograd.Tensor
}

func (e *encoderModel) Forward(x *autograd.Tensor) *autograd.Tensor {
	return autograd.Mul(e.Head.Forward(e.Encoder.Forward(x)), e.Scale)
}

func (e *encoderModel) Parameters() []*autograd.Tensor {
	return append(append(e.Encoder.Parameters(), e.Head.Parameters()...), e.Scale)
}

func (e *encoderModel) Buffers() []*autograd.Tensor { return e.Encoder.Buffers() }

func TestStateDictNamesNested(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	m := &encoderModel{
		Encoder: NewSequential(NewConv2d(1, 2, 3, autograd.Conv2dConfig{}, false, autograd.Float32, rng), NewBatchNorm2d(2, DefaultBatchNorm(), autograd.Float32)),
		Head:    NewLinear(2, 1, true, autograd.Float32, rng),
		Scale:   autograd.Ones(autograd.Float32, 1),
	}
	sd, err := GetStateDict(m)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"scale", "encoder.0.weight", "encoder.1.weight", "encoder.1.bias", "encoder.1.running_mean",
		"encoder.1.running_var", "encoder.1.num_batches_tracked", "head.weight", "head.bias"}
	if !slices.Equal(sd.Names(), want) {
		t.Fatalf("names %v, want %v", sd.Names(), want)
	}
}

// hiddenModel keeps a parameter where naming cannot see it.
type hiddenModel struct{ w *autograd.Tensor }

func (h *hiddenModel) Forward(x *autograd.Tensor) *autograd.Tensor { return x }
func (h *hiddenModel) Parameters() []*autograd.Tensor              { return []*autograd.Tensor{h.w} }

func TestStateDictRefusesUnnamedParameter(t *testing.T) {
	_, err := GetStateDict(&hiddenModel{w: autograd.Zeros(autograd.Float32, 2)})
	if err == nil || !strings.Contains(err.Error(), "nn.Named") {
		t.Fatalf("err = %v, want one saying the parameter has no name", err)
	}
}

func TestReadTorchFixture(t *testing.T) {
	m := fixtureModel(autograd.Float32)
	if err := LoadTorch("testdata/torch/sequential.pt", m); err != nil {
		t.Fatal(err)
	}
	checkFixtureModel(t, m)
}

func TestReadSafetensorsFixture(t *testing.T) {
	m := fixtureModel(autograd.Float32)
	if err := LoadSafetensors("testdata/torch/sequential.safetensors", m); err != nil {
		t.Fatal(err)
	}
	checkFixtureModel(t, m)
	f, err := os.Open("testdata/torch/sequential.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, meta, err := tensorfile.ReadSafetensors(f)
	if err != nil || meta["format"] != "pt" {
		t.Errorf("metadata %v, %v; want format pt", meta, err)
	}
}

func checkSameStateDict(t *testing.T, got, want tensorfile.StateDict) {
	t.Helper()
	if !slices.Equal(got.Names(), want.Names()) {
		t.Fatalf("names %v, want %v", got.Names(), want.Names())
	}
	for i, e := range want {
		g := got[i]
		if g.DType != e.DType || !slices.Equal(g.Shape, e.Shape) || !bytes.Equal(g.Data, e.Data) {
			t.Errorf("%s: %s %v %v, want %s %v %v", e.Name, g.DType, g.Shape, g.Float64s(), e.DType, e.Shape, e.Float64s())
		}
	}
}

// TestLoadStateDictStrict: every mismatch is an error naming the tensor,
// and the model is left as it was.
func TestLoadStateDictStrict(t *testing.T) {
	good, err := GetStateDict(fixtureModel(autograd.Float32))
	if err != nil {
		t.Fatal(err)
	}
	edit := func(f func(sd tensorfile.StateDict) tensorfile.StateDict) tensorfile.StateDict {
		sd := slices.Clone(good)
		return f(sd)
	}
	cases := []struct {
		name, want string
		sd         tensorfile.StateDict
	}{
		{"missing", `"2.running_var"`, edit(func(sd tensorfile.StateDict) tensorfile.StateDict { return slices.Delete(sd, 5, 6) })},
		{"unexpected", `"3.weight"`, edit(func(sd tensorfile.StateDict) tensorfile.StateDict {
			return append(sd, tensorfile.Entry{Name: "3.weight", DType: tensorfile.F32, Shape: []int{1}, Data: make([]byte, 4)})
		})},
		{"shape", `"0.weight"`, edit(func(sd tensorfile.StateDict) tensorfile.StateDict {
			sd[0].Shape = []int{3, 2}
			return sd
		})},
		{"dtype", `"0.bias"`, edit(func(sd tensorfile.StateDict) tensorfile.StateDict {
			sd[1] = tensorfile.Entry{Name: "0.bias", DType: tensorfile.F64, Shape: []int{2}, Data: make([]byte, 16)}
			return sd
		})},
		{"count dtype", `"2.num_batches_tracked"`, edit(func(sd tensorfile.StateDict) tensorfile.StateDict {
			sd[6] = tensorfile.Entry{Name: "2.num_batches_tracked", DType: tensorfile.F32, Shape: []int{}, Data: make([]byte, 4)}
			return sd
		})},
		{"short data", `"2.weight"`, edit(func(sd tensorfile.StateDict) tensorfile.StateDict {
			sd[2].Data = sd[2].Data[:4]
			return sd
		})},
	}
	for _, c := range cases {
		m := fixtureModel(autograd.Float32)
		before, _ := GetStateDict(m)
		err := LoadStateDict(m, c.sd)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want one naming %s", c.name, err, c.want)
		}
		after, _ := GetStateDict(m)
		checkSameStateDict(t, after, before)
	}
}

func TestSaveLoadFilesRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, save := range []struct {
		ext  string
		save func(string, Module) error
		load func(string, Module) error
	}{{".pt", SaveTorch, LoadTorch}, {".safetensors", SaveSafetensors, LoadSafetensors}} {
		src := fixtureModel(autograd.Float64)
		src.Layers[2].(*BatchNorm).NumBatchesTracked.SetAt(0, 12)
		path := filepath.Join(dir, "m"+save.ext)
		if err := save.save(path, src); err != nil {
			t.Fatal(err)
		}
		dst := NewSequential(NewLinear(3, 2, true, autograd.Float64, rand.New(rand.NewPCG(9, 9))), ReLU, NewBatchNorm1d(2, DefaultBatchNorm(), autograd.Float64))
		if err := save.load(path, dst); err != nil {
			t.Fatal(err)
		}
		a, _ := GetStateDict(src)
		b, _ := GetStateDict(dst)
		checkSameStateDict(t, b, a)
	}
}
