package optim

import (
	"encoding/binary"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/nn/tensorfile"
	"github.com/dlca/dlca/internal/safefile"
)

// Optimiser state in PyTorch's layout: optimizer.state_dict() is
//
//	{"state": {index: {"step": ..., "exp_avg": tensor, ...}, ...},
//	 "param_groups": [{"lr": ..., "betas": (β₁, β₂), ..., "params": [indices]}, ...]}
//
// with parameters numbered across the groups in order, as here. SaveTorch
// writes it in the torch.save format, which torch.load(weights_only=True)
// reads and optimizer.load_state_dict takes; LoadTorch reads what
// torch.save(optimizer.state_dict()) wrote.

// TorchOptimizer is an optimiser whose state has PyTorch's layout: SGD,
// Adam, AdamW, RMSprop, Adagrad, Adamax, NAdam and RAdam.
type TorchOptimizer interface {
	Optimizer
	State() State
	LoadState(State) error
	torchLayout() torchLayout
}

// torchLayout is what an optimiser's state is called in PyTorch.
type torchLayout struct {
	params []*autograd.Tensor
	// groups are each group's hyper-parameters under PyTorch's names
	// (without "params"), and sizes its parameter counts.
	groups []*tensorfile.PyDict
	sizes  []int
	// names maps State's buffer names to PyTorch's state keys.
	names map[string]string
	// step is how PyTorch 1.13 keeps the step count: stepNone (SGD),
	// stepInt (RMSprop) or stepTensor (a 0-d float32 tensor, the Adam
	// family and Adagrad).
	step stepKind
	// eager, when not nil, is the initial value of parameter i's buffer:
	// PyTorch builds that optimiser's state for every parameter at once
	// (Adagrad's sum), so a state_dict has every parameter's.
	eager func(i int) float64
}

type stepKind int

const (
	stepNone stepKind = iota
	stepInt
	stepTensor
)

// implementationFlags are param_groups keys that choose how PyTorch
// computes, not what: they are written as PyTorch's defaults and ignored on
// reading.
var implementationFlags = []string{"foreach", "differentiable", "capturable", "fused"}

func pyGroup(kv ...any) *tensorfile.PyDict {
	d := &tensorfile.PyDict{}
	for i := 0; i < len(kv); i += 2 {
		d.Set(kv[i], kv[i+1])
	}
	return d
}

func (o *SGD) torchLayout() torchLayout {
	l := torchLayout{params: o.params, names: map[string]string{"momentum": "momentum_buffer"}, step: stepNone}
	for _, g := range o.groups {
		c := g.cfg
		l.groups = append(l.groups, pyGroup("lr", c.LR, "momentum", c.Momentum, "dampening", c.Dampening,
			"weight_decay", c.WeightDecay, "nesterov", c.Nesterov, "maximize", false, "foreach", nil,
			"differentiable", false, "initial_lr", g.initialLR))
		l.sizes = append(l.sizes, g.n)
	}
	return l
}

func (o *Adam) torchLayout() torchLayout {
	l := torchLayout{params: o.params, step: stepTensor,
		names: map[string]string{"m": "exp_avg", "v": "exp_avg_sq", "max_v": "max_exp_avg_sq"}}
	for _, g := range o.groups {
		c := g.cfg
		l.groups = append(l.groups, pyGroup("lr", c.LR, "betas", tensorfile.PyTuple{c.Beta1, c.Beta2}, "eps", c.Eps,
			"weight_decay", c.WeightDecay, "amsgrad", c.AMSGrad, "maximize", false, "foreach", nil,
			"capturable", false, "differentiable", false, "fused", false, "initial_lr", g.initialLR))
		l.sizes = append(l.sizes, g.n)
	}
	return l
}

// elementwiseLayout is the layout of the elementwise optimisers, whose
// buffers have PyTorch's names already; hyper names each group's
// hyper-parameters.
func elementwiseLayout[R rule](o *elementwise[R], step stepKind, hyper func(R) []any) torchLayout {
	l := torchLayout{params: o.params, step: step, names: map[string]string{}}
	for name := range o.bufs {
		l.names[name] = name
	}
	for _, g := range o.groups {
		kv := append([]any{"lr", g.lr}, hyper(g.rule)...)
		l.groups = append(l.groups, pyGroup(append(kv, "foreach", nil, "initial_lr", g.initialLR)...))
		l.sizes = append(l.sizes, g.n)
	}
	return l
}

func (o *RMSprop) torchLayout() torchLayout {
	return elementwiseLayout(&o.elementwise, stepInt, func(c RMSpropConfig) []any {
		return []any{"momentum", c.Momentum, "alpha", c.Alpha, "eps", c.Eps, "centered", c.Centered,
			"weight_decay", c.WeightDecay, "maximize", false, "differentiable", false}
	})
}

func (o *Adagrad) torchLayout() torchLayout {
	l := elementwiseLayout(&o.elementwise, stepTensor, func(c AdagradConfig) []any {
		return []any{"lr_decay", c.LRDecay, "eps", c.Eps, "weight_decay", c.WeightDecay,
			"initial_accumulator_value", c.InitialAccumulatorValue, "maximize", false}
	})
	l.eager = func(i int) float64 {
		for _, g := range o.groups {
			if i < g.first+g.n {
				return g.rule.InitialAccumulatorValue
			}
		}
		return 0
	}
	return l
}

func (o *Adamax) torchLayout() torchLayout {
	return elementwiseLayout(&o.elementwise, stepTensor, func(c AdamaxConfig) []any {
		return []any{"betas", tensorfile.PyTuple{c.Beta1, c.Beta2}, "eps", c.Eps, "weight_decay", c.WeightDecay, "maximize", false}
	})
}

func (o *NAdam) torchLayout() torchLayout {
	return elementwiseLayout(&o.elementwise, stepTensor, func(c NAdamConfig) []any {
		return []any{"betas", tensorfile.PyTuple{c.Beta1, c.Beta2}, "eps", c.Eps, "weight_decay", c.WeightDecay, "momentum_decay", c.MomentumDecay}
	})
}

func (o *RAdam) torchLayout() torchLayout {
	return elementwiseLayout(&o.elementwise, stepTensor, func(c RAdamConfig) []any {
		return []any{"betas", tensorfile.PyTuple{c.Beta1, c.Beta2}, "eps", c.Eps, "weight_decay", c.WeightDecay}
	})
}

// storages collects the tensors of a torch.save file.
type storages [][]byte

// add stores e's bytes and returns the pickler's reference to them.
func (s *storages) add(e tensorfile.Entry) tensorfile.TorchTensor {
	*s = append(*s, e.Data)
	return tensorfile.TorchTensor{Key: strconv.Itoa(len(*s) - 1), DType: e.DType, Shape: e.Shape}
}

func scalarEntry(v float64) tensorfile.Entry {
	return tensorfile.Entry{DType: tensorfile.F32, Shape: []int{}, Data: binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(v)))}
}

// WriteTorch writes opt's state as PyTorch's optimizer.state_dict() in the
// torch.save format. PyTorch 1.13 keeps the step count as an int
// (RMSprop) or a 0-d float32 tensor (the others but SGD, which has none),
// and NAdam's mu_product as a 0-d float32 tensor: so they are written.
func WriteTorch(w io.Writer, opt TorchOptimizer) error {
	l, s := opt.torchLayout(), opt.State()
	var data storages
	state := &tensorfile.PyDict{}
	for i, p := range l.params {
		entry := &tensorfile.PyDict{}
		steps := 0
		if s.ParamSteps != nil {
			steps = s.ParamSteps[i]
		}
		if steps > 0 {
			switch l.step {
			case stepInt:
				entry.Set("step", steps)
			case stepTensor:
				entry.Set("step", data.add(scalarEntry(float64(steps))))
			}
		}
		for _, name := range slices.Sorted(maps.Keys(s.ParamScalars)) {
			if steps > 0 {
				entry.Set(name, data.add(scalarEntry(s.ParamScalars[name][i])))
			}
		}
		for _, name := range slices.Sorted(maps.Keys(s.Buffers)) {
			values := s.Buffers[name][i]
			if values == nil && l.eager != nil {
				values = slices.Repeat([]float64{l.eager(i)}, p.Len())
				if l.step == stepTensor && steps == 0 {
					entry.Set("step", data.add(scalarEntry(0)))
				}
			}
			if values == nil {
				continue
			}
			t := autograd.Zeros(p.DType(), p.Shape()...)
			for j, v := range values {
				t.SetAt(j, v)
			}
			e, err := tensorfile.EntryOf(name, t)
			if err != nil {
				return err
			}
			entry.Set(l.names[name], data.add(e))
		}
		if len(entry.Keys) > 0 {
			state.Set(i, entry)
		}
	}
	var groups []any
	index := 0
	for g, hyper := range l.groups {
		d := &tensorfile.PyDict{Keys: slices.Clone(hyper.Keys), Values: slices.Clone(hyper.Values)}
		var ids []any
		for range l.sizes[g] {
			ids = append(ids, index)
			index++
		}
		d.Set("params", ids)
		groups = append(groups, d)
	}
	top := &tensorfile.PyDict{}
	top.Set("state", state)
	top.Set("param_groups", groups)
	return tensorfile.WriteTorchObject(w, top, data)
}

// SaveTorch writes opt's state to path (see WriteTorch) through
// internal/safefile, so a failed save leaves any earlier file whole.
func SaveTorch(path string, opt TorchOptimizer) error {
	return safefile.Write(path, func(w io.Writer) error { return WriteTorch(w, opt) })
}

// LoadTorch reads a torch.save file of optimizer.state_dict() into opt
// (see ReadTorch).
func LoadTorch(path string, opt TorchOptimizer) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if err := ReadTorch(f, info.Size(), opt); err != nil {
		return fmt.Errorf("%w (loading %s)", err, path)
	}
	return nil
}

// ReadTorch reads PyTorch's optimizer.state_dict() from a torch.save file
// of size bytes into opt, strictly: the groups and their parameter counts
// must match, every hyper-parameter but the learning rate must equal
// opt's (the learning rates are taken, as a scheduler may have changed
// them), each parameter's state must hold exactly the keys opt keeps, of
// the parameter's shape and element type, and anything else is an error
// naming it. Flags that choose how PyTorch computes (foreach, fused,
// capturable, differentiable) and initial_lr are not compared, and a key
// opt does not know is accepted when it is False or None (an option of
// another PyTorch version, off, such as 2.x's decoupled_weight_decay). A
// successful read replaces opt's state; a failed one changes nothing.
func ReadTorch(r io.ReaderAt, size int64, opt TorchOptimizer) error {
	obj, err := tensorfile.ReadTorchObject(r, size)
	if err != nil {
		return err
	}
	top, ok := obj.(*tensorfile.PyDict)
	if !ok {
		return fmt.Errorf("optim: the file holds a %T, not an optimizer state_dict (a dict of \"state\" and \"param_groups\")", obj)
	}
	l := opt.torchLayout()
	fileState, ok1 := dictGet(top, "state").(*tensorfile.PyDict)
	fileGroups, ok2 := dictGet(top, "param_groups").([]any)
	if !ok1 || !ok2 || len(top.Keys) != 2 {
		return fmt.Errorf("optim: the file's dict has keys %v; an optimizer state_dict has exactly \"state\" (a dict) and \"param_groups\" (a list)", top.Keys)
	}
	s := opt.State() // the kind, and the shape of what to fill
	s.Buffers = map[string][][]float64{}
	for name := range l.names {
		s.Buffers[name] = make([][]float64, len(l.params))
	}
	s.ParamSteps, s.ParamScalars, s.GroupLRs = make([]int, len(l.params)), nil, nil
	ids, err := readGroups(fileGroups, l, &s)
	if err != nil {
		return err
	}
	pyNames := map[string]string{}
	for ours, theirs := range l.names {
		pyNames[theirs] = ours
	}
	for k, key := range fileState.Keys {
		id, ok := key.(int)
		i, known := ids[id]
		if !ok || !known {
			return fmt.Errorf("optim: the file has state for parameter %v, which no param_groups entry lists", key)
		}
		entry, ok := fileState.Values[k].(*tensorfile.PyDict)
		if !ok {
			return fmt.Errorf("optim: the state of parameter %d is not a dict", id)
		}
		if err := readParamState(entry, i, l, pyNames, &s); err != nil {
			return fmt.Errorf("optim: the state of parameter %d: %w", id, err)
		}
	}
	for _, n := range s.ParamSteps {
		s.Steps = max(s.Steps, n)
	}
	if len(s.GroupLRs) == 1 {
		s.GroupLRs = nil
	}
	return opt.LoadState(s)
}

func dictGet(d *tensorfile.PyDict, key any) any {
	for i, k := range d.Keys {
		if k == key {
			return d.Values[i]
		}
	}
	return nil
}

// readGroups checks the file's param_groups against l, takes their
// learning rates into s, and returns the flat index of each parameter id.
func readGroups(fileGroups []any, l torchLayout, s *State) (map[int]int, error) {
	if len(fileGroups) != len(l.groups) {
		return nil, fmt.Errorf("optim: the file has %d parameter groups; the optimiser has %d", len(fileGroups), len(l.groups))
	}
	ids := map[int]int{}
	index := 0
	for g, fg := range fileGroups {
		d, ok := fg.(*tensorfile.PyDict)
		if !ok {
			return nil, fmt.Errorf("optim: param_groups[%d] is not a dict", g)
		}
		ours := l.groups[g]
		for k, key := range d.Keys {
			name, _ := key.(string)
			v := d.Values[k]
			switch {
			case name == "params":
				list, ok := v.([]any)
				if !ok || len(list) != l.sizes[g] {
					return nil, fmt.Errorf("optim: param_groups[%d] has params %v; the optimiser's group has %d parameters", g, v, l.sizes[g])
				}
				for _, id := range list {
					n, ok := id.(int)
					if _, dup := ids[n]; !ok || dup {
						return nil, fmt.Errorf("optim: param_groups[%d] lists parameter %v twice or not as an int", g, id)
					}
					ids[n] = index
					index++
				}
			case name == "lr":
				lr, ok := number(v)
				if !ok || lr < 0 {
					return nil, fmt.Errorf("optim: param_groups[%d] has lr %v", g, v)
				}
				s.GroupLRs = append(s.GroupLRs, lr)
				if g == 0 {
					s.LR = lr
				}
			case name == "initial_lr" || slices.Contains(implementationFlags, name):
			default:
				want := dictGet(ours, name)
				if want == nil && !slices.Contains(ours.Keys, any(name)) {
					if v == false || v == nil {
						continue // an option of another PyTorch version, off
					}
					return nil, fmt.Errorf("optim: param_groups[%d] has %q = %v, which this optimiser does not have (unexpected key)", g, name, v)
				}
				if !samePy(v, want) {
					return nil, fmt.Errorf("optim: param_groups[%d] has %s = %v; the optimiser's is %v (build it with the same hyper-parameters)", g, name, v, want)
				}
			}
		}
		for _, key := range ours.Keys {
			name := key.(string)
			if name != "initial_lr" && !slices.Contains(implementationFlags, name) && !slices.Contains(d.Keys, key) {
				return nil, fmt.Errorf("optim: param_groups[%d] has no %q (missing key)", g, name)
			}
		}
		if !slices.Contains(d.Keys, any("params")) {
			return nil, fmt.Errorf("optim: param_groups[%d] has no \"params\" (missing key)", g)
		}
	}
	return ids, nil
}

// number returns v as a float64 when it is a Python int or float.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// samePy reports whether two hyper-parameter values are equal, an int
// equal to a float (PyTorch keeps momentum=0 as the int 0).
func samePy(a, b any) bool {
	if x, ok := number(a); ok {
		y, ok := number(b)
		return ok && x == y
	}
	if ta, ok := a.(tensorfile.PyTuple); ok {
		tb, ok := b.(tensorfile.PyTuple)
		if !ok || len(ta) != len(tb) {
			return false
		}
		for i := range ta {
			if !samePy(ta[i], tb[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}

// readParamState reads one parameter's state dict into s.
func readParamState(entry *tensorfile.PyDict, i int, l torchLayout, pyNames map[string]string, s *State) error {
	p := l.params[i]
	sawStep := false
	want := tensorfile.F32
	if p.DType() == autograd.Float64 {
		want = tensorfile.F64
	}
	for k, key := range entry.Keys {
		name, _ := key.(string)
		v := entry.Values[k]
		if name == "step" && l.step != stepNone {
			n, err := stepCount(v)
			if err != nil {
				return err
			}
			s.ParamSteps[i], sawStep = n, true
			continue
		}
		if name == "mu_product" {
			e, ok := v.(tensorfile.Entry)
			if !ok || len(e.Float64s()) != 1 {
				return fmt.Errorf("mu_product is %v, not a one-element tensor", v)
			}
			if s.ParamScalars == nil {
				s.ParamScalars = map[string][]float64{"mu_product": make([]float64, len(l.params))}
			}
			s.ParamScalars["mu_product"][i] = e.Float64s()[0]
			continue
		}
		ours, ok := pyNames[name]
		if !ok {
			return fmt.Errorf("unexpected key %q", name)
		}
		if v == nil { // SGD's momentum_buffer of None: no buffer yet
			continue
		}
		e, ok := v.(tensorfile.Entry)
		if !ok {
			return fmt.Errorf("%q is a %T, not a tensor", name, v)
		}
		if e.DType != want || !slices.Equal(e.Shape, p.Shape()) {
			return fmt.Errorf("%q is %s %v; the parameter is %s %v", name, e.DType, e.Shape, want, p.Shape())
		}
		s.Buffers[ours][i] = e.Float64s()
	}
	if l.step != stepNone && !sawStep {
		return fmt.Errorf("no \"step\" (missing key)")
	}
	return nil
}

// stepCount reads PyTorch's step: an int, or a one-element tensor of a
// whole number.
func stepCount(v any) (int, error) {
	var f float64
	switch x := v.(type) {
	case int:
		f = float64(x)
	case tensorfile.Entry:
		if vs := x.Float64s(); len(vs) == 1 {
			f = vs[0]
		} else {
			return 0, fmt.Errorf("step is a tensor of shape %v, not one number", x.Shape)
		}
	default:
		return 0, fmt.Errorf("step is a %T, not a number", v)
	}
	if f < 0 || f != math.Trunc(f) || f > math.MaxInt32 {
		return 0, fmt.Errorf("step is %v, not a count", f)
	}
	return int(f), nil
}
