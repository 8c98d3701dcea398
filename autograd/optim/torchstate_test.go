package optim

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/nn/tensorfile"
)

// TestLoadTorchStateFixtures reads optimizer.state_dict() files that
// PyTorch 1.13 wrote (testdata/generate.py): one step on p = [1, 2] with
// gradient [0.5, -1]. By hand: Adam's exp_avg = 0.1·g, exp_avg_sq =
// 0.001·g², step 1; SGD's momentum buffer is g itself on the first step.
func TestLoadTorchStateFixtures(t *testing.T) {
	f32 := func(vs ...float64) []float64 {
		for i, v := range vs {
			vs[i] = float64(float32(v))
		}
		return vs
	}
	p := autograd.New([]float32{1, 2}, 2).SetRequiresGrad(true)
	adam := NewAdam([]*autograd.Tensor{p}, AdamConfig{LR: 0.1, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8})
	if err := LoadTorch("testdata/adam_state.pt", adam); err != nil {
		t.Fatal(err)
	}
	s := adam.State()
	if !slices.Equal(s.ParamSteps, []int{1}) || !slices.Equal(s.Buffers["m"][0], f32(0.05, -0.1)) ||
		!near32(s.Buffers["v"][0], []float64{0.00025, 0.001}) {
		t.Errorf("Adam state %+v", s)
	}
	sgd := NewSGD([]*autograd.Tensor{p}, SGDConfig{LR: 0.1, Momentum: 0.9})
	if err := LoadTorch("testdata/sgd_state.pt", sgd); err != nil {
		t.Fatal(err)
	}
	if m := sgd.State().Buffers["momentum"][0]; !slices.Equal(m, []float64{0.5, -1}) {
		t.Errorf("SGD momentum buffer %v, want [0.5 -1]", m)
	}
	// Another configuration is refused, naming the difference.
	other := NewSGD([]*autograd.Tensor{p}, SGDConfig{LR: 0.1, Momentum: 0.5})
	if err := LoadTorch("testdata/sgd_state.pt", other); err == nil || !strings.Contains(err.Error(), "momentum = 0.9") {
		t.Errorf("err = %v, want one naming momentum = 0.9", err)
	}
	if err := LoadTorch("testdata/sgd_state.pt", adam); err == nil || !strings.Contains(err.Error(), "momentum") {
		t.Errorf("SGD state into Adam: err = %v, want one naming momentum", err)
	}
}

func near32(got, want []float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-6*math.Abs(want[i]) {
			return false
		}
	}
	return true
}

// TestTorchStateRoundTrip writes every optimiser's state in PyTorch's
// layout after three steps, reads it into a fresh optimiser, and checks
// that both go on identically.
func TestTorchStateRoundTrip(t *testing.T) {
	for _, c := range torchCases() {
		a := newParams([][]float64{{0.5, -1.25, 2}, {0.25}})
		oa := c.make(a)
		grads := [][][]float64{}
		for k := 1; k <= 6; k++ {
			grads = append(grads, [][]float64{{refGrad(k, 0), refGrad(k, 1), refGrad(k, 2)}, {refGrad(k, 3)}})
		}
		stepAll(t, oa, a, grads, 0, 3)
		var buf bytes.Buffer
		if err := WriteTorch(&buf, oa); err != nil {
			t.Fatal(err)
		}
		b := newParams([][]float64{a[0].Float64s(), a[1].Float64s()})
		ob := c.make(b)
		if err := ReadTorch(bytes.NewReader(buf.Bytes()), int64(buf.Len()), ob); err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		ga, gb := stepAll(t, oa, a, grads, 3, 6), stepAll(t, ob, b, grads, 3, 6)
		compareTrajectories(t, c.Name+" resumed", gb, ga)
	}
}

// TestReadTorchStateStrict: a state that does not fit is refused with an
// error naming what, and the optimiser keeps its own.
func TestReadTorchStateStrict(t *testing.T) {
	p := newParams([][]float64{{1, 2}})
	src := NewAdam(p, DefaultAdam())
	stepAll(t, src, p, [][][]float64{{{0.5, -1}}}, 0, 1)
	var buf bytes.Buffer
	if err := WriteTorch(&buf, src); err != nil {
		t.Fatal(err)
	}
	read := func(opt TorchOptimizer) error {
		return ReadTorch(bytes.NewReader(buf.Bytes()), int64(buf.Len()), opt)
	}
	amsgrad := DefaultAdam()
	amsgrad.AMSGrad = true
	if err := read(NewAdam(newParams([][]float64{{1, 2}}), amsgrad)); err == nil || !strings.Contains(err.Error(), "amsgrad") {
		t.Errorf("AMSGrad: err = %v, want one naming amsgrad", err)
	}
	if err := read(NewAdam(newParams([][]float64{{1, 2, 3}}), DefaultAdam())); err == nil || !strings.Contains(err.Error(), "exp_avg") {
		t.Errorf("shape: err = %v, want one naming exp_avg", err)
	}
	if err := read(NewAdam(newParams([][]float64{{1, 2}, {3}}), DefaultAdam())); err == nil || !strings.Contains(err.Error(), "parameters") {
		t.Errorf("parameter count: err = %v", err)
	}
	f32 := NewAdam([]*autograd.Tensor{autograd.New([]float32{1, 2}, 2)}, DefaultAdam())
	if err := read(f32); err == nil || !strings.Contains(err.Error(), "F64") {
		t.Errorf("dtype: err = %v, want one naming F64", err)
	}
	if s := f32.State(); s.ParamSteps[0] != 0 {
		t.Errorf("a refused state changed the optimiser: %+v", s)
	}
	// An unexpected state key, and a missing one.
	rms := NewRMSprop(newParams([][]float64{{1}}), RMSpropConfig{LR: 0.01})
	for _, c := range []struct{ key, want string }{{"bogus", `unexpected key "bogus"`}, {"", `no "step"`}, {"ok", ""}} {
		entry := &tensorfile.PyDict{}
		if c.key == "ok" {
			entry.Set("step", 1)
		} else if c.key != "" {
			entry.Set("step", 1)
			entry.Set(c.key, 1)
		}
		entry.Set("square_avg", tensorfile.TorchTensor{Key: "0", DType: tensorfile.F64, Shape: []int{1}})
		state := &tensorfile.PyDict{}
		state.Set(0, entry)
		l := rms.torchLayout()
		l.groups[0].Set("params", []any{0})
		// Another version's option, off: accepted.
		l.groups[0].Set("decoupled_weight_decay", false)
		sd := &tensorfile.PyDict{}
		sd.Set("state", state)
		sd.Set("param_groups", []any{l.groups[0]})
		var b bytes.Buffer
		if err := tensorfile.WriteTorchObject(&b, sd, [][]byte{make([]byte, 8)}); err != nil {
			t.Fatal(err)
		}
		err := ReadTorch(bytes.NewReader(b.Bytes()), int64(b.Len()), rms)
		if c.want == "" {
			if err != nil {
				t.Errorf("a state with an option of another version, off: %v", err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("err = %v, want one saying %s", err, c.want)
		}
	}
}
