package nn

import (
	"encoding/binary"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/nn/tensorfile"
)

// Named is a module that names its own tensors for a state dict, as a
// PyTorch module's _save_to_state_dict does; modules that are not Named are
// named by the rule of GetStateDict.
type Named interface {
	// NamedTensors returns the module's own parameters and buffers by
	// PyTorch name, and its submodules by attribute name.
	NamedTensors() (tensors []NamedTensor, children []NamedModule)
}

// NamedTensor is a tensor of a module under its PyTorch attribute name.
type NamedTensor struct {
	Name   string
	Tensor *autograd.Tensor
}

// NamedModule is a submodule under its PyTorch attribute name.
type NamedModule struct {
	Name   string
	Module Module
}

// slot is one tensor of a model with its full name, and whether PyTorch
// keeps it as a 0-d int64 count (BatchNorm's num_batches_tracked, a [1]
// float64 tensor here).
type slot struct {
	name  string
	t     *autograd.Tensor
	count bool
}

// slots lists m's tensors under PyTorch's names, parameters and buffers of
// each module before its submodules', and checks that they are exactly m's
// Parameters and Buffers, so that no tensor is left out of a file or named
// twice.
func slots(m Module) ([]slot, error) {
	var out []slot
	if err := walk(m, "", &out); err != nil {
		return nil, err
	}
	all := append(m.Parameters(), Buffers(m)...)
	for _, s := range out {
		if !slices.Contains(all, s.t) {
			return nil, fmt.Errorf("nn: %q is neither a parameter nor a buffer of the model (implement nn.Named on its module)", s.name)
		}
	}
	for _, t := range all {
		n := 0
		for _, s := range out {
			if s.t == t {
				n++
			}
		}
		if n != 1 {
			return nil, fmt.Errorf("nn: a tensor of shape %v is named %d times in the state dict, want once (implement nn.Named on its module)", t.Shape(), n)
		}
	}
	return out, nil
}

func walk(m Module, prefix string, out *[]slot) error {
	tensors, children, err := namedTensors(m)
	if err != nil {
		return fmt.Errorf("nn: naming the tensors of %s: %w", strings.TrimSuffix(prefix, "."), err)
	}
	counts := counters(m)
	for _, nt := range tensors {
		*out = append(*out, slot{name: prefix + nt.Name, t: nt.Tensor, count: slices.Contains(counts, nt.Tensor)})
	}
	for _, c := range children {
		if err := walk(c.Module, prefix+c.Name+".", out); err != nil {
			return err
		}
	}
	return nil
}

// namedTensors names m's own tensors and its submodules: a Sequential's
// layers by index, a Named module as it says, and any other struct by its
// exported fields (a *autograd.Tensor or Module field by its name in
// snake case, nil ones left out), as PyTorch names attributes.
func namedTensors(m Module) ([]NamedTensor, []NamedModule, error) {
	switch l := m.(type) {
	case Named:
		ts, cs := l.NamedTensors()
		return ts, cs, nil
	case *Sequential:
		cs := make([]NamedModule, len(l.Layers))
		for i, layer := range l.Layers {
			cs[i] = NamedModule{strconv.Itoa(i), layer}
		}
		return nil, cs, nil
	}
	v := reflect.ValueOf(m)
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return nil, nil, nil // a Func and the like: nothing to name
	}
	var ts []NamedTensor
	var cs []NamedModule
	tensorType := reflect.TypeFor[*autograd.Tensor]()
	moduleType := reflect.TypeFor[Module]()
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if !f.IsExported() {
			continue
		}
		fv := v.Field(i)
		switch {
		case f.Type == tensorType:
			if t := fv.Interface().(*autograd.Tensor); t != nil {
				ts = append(ts, NamedTensor{snakeCase(f.Name), t})
			}
		case f.Type.Implements(moduleType) && !isNil(fv):
			cs = append(cs, NamedModule{snakeCase(f.Name), fv.Interface().(Module)})
		}
	}
	return ts, cs, nil
}

func isNil(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Func, reflect.Map, reflect.Slice:
		return v.IsNil()
	}
	return false
}

// snakeCase turns a Go field name into PyTorch's attribute name:
// RunningMean → running_mean, NumBatchesTracked → num_batches_tracked.
func snakeCase(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// GetStateDict returns m's parameters and buffers under PyTorch's names, as
// module.state_dict(): a Sequential's layers by index ("0.weight",
// "2.bias"), other modules' tensors by attribute name (weight, bias,
// running_mean, running_var, num_batches_tracked), nested modules dotted.
// Float32 and float64 tensors are stored as tensorfile.F32 and tensorfile.F64; BatchNorm's
// num_batches_tracked as PyTorch's 0-d int64. Tensors on a device are read
// back; GetStateDict returns the device's error.
func GetStateDict(m Module) (tensorfile.StateDict, error) {
	ss, err := slots(m)
	if err != nil {
		return nil, err
	}
	sd := make(tensorfile.StateDict, len(ss))
	for i, s := range ss {
		if s.count {
			c, err := s.t.To(autograd.CPU)
			if err != nil {
				return nil, fmt.Errorf("nn: reading %q back from %v: %w", s.name, s.t.Device(), err)
			}
			sd[i] = tensorfile.Entry{Name: s.name, DType: tensorfile.I64, Shape: []int{},
				Data: binary.LittleEndian.AppendUint64(nil, uint64(int64(c.At(0))))}
			continue
		}
		if sd[i], err = tensorfile.EntryOf(s.name, s.t); err != nil {
			return nil, err
		}
	}
	return sd, nil
}

// LoadStateDict copies sd into m's parameters and buffers in place (on
// whatever device each lives), as module.load_state_dict(sd, strict=True),
// and stricter: it returns an error naming the tensor, and changes nothing,
// when sd lacks a tensor of m, holds one m does not have, or holds one of
// another shape or element type (tensorfile.F32 for a float32 tensor, tensorfile.F64 for a
// float64 one, tensorfile.I64 of shape [] for num_batches_tracked).
func LoadStateDict(m Module, sd tensorfile.StateDict) error {
	ss, err := slots(m)
	if err != nil {
		return err
	}
	byName := make(map[string]tensorfile.Entry, len(sd))
	for _, e := range sd {
		if _, dup := byName[e.Name]; dup {
			return fmt.Errorf("nn: the state dict holds %q twice", e.Name)
		}
		byName[e.Name] = e
	}
	for _, s := range ss {
		e, ok := byName[s.name]
		if !ok {
			return fmt.Errorf("nn: the state dict has no %q (missing key; it holds %s)", s.name, strings.Join(sd.Names(), ", "))
		}
		if err := e.Check(); err != nil {
			return err
		}
		want, shape := tensorfile.F32, s.t.Shape()
		switch {
		case s.count:
			want, shape = tensorfile.I64, []int{}
		case s.t.DType() == autograd.Float64:
			want = tensorfile.F64
		}
		if e.DType != want {
			return fmt.Errorf("nn: %q is %s in the state dict; the model's is %s (convert it before saving)", s.name, e.DType, want)
		}
		if !slices.Equal(e.Shape, shape) {
			return fmt.Errorf("nn: %q has shape %v in the state dict; the model's has %v", s.name, e.Shape, shape)
		}
		delete(byName, s.name)
	}
	if len(byName) > 0 {
		var extra []string
		for _, e := range sd {
			if _, ok := byName[e.Name]; ok {
				extra = append(extra, strconv.Quote(e.Name))
			}
		}
		return fmt.Errorf("nn: the state dict holds %s, which the model does not have (unexpected keys)", strings.Join(extra, ", "))
	}
	for _, s := range ss {
		e, _ := sd.Get(s.name)
		if err := setValues(s.t, e.Float64s()); err != nil {
			return fmt.Errorf("nn: loading %q: %w", s.name, err)
		}
	}
	return nil
}

// setValues writes values into t in place, through the CPU when t lives on
// a device.
func setValues(t *autograd.Tensor, values []float64) error {
	dev := t.Device()
	if dev != autograd.CPU {
		if err := t.MoveTo(autograd.CPU); err != nil {
			return err
		}
	}
	for i, v := range values {
		t.SetAt(i, v)
	}
	if dev != autograd.CPU {
		return t.MoveTo(dev)
	}
	return nil
}
