package nn

import (
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/dlca/dlca/autograd"
)

// StoredDType is the element type of a tensor in a weights file, named as
// safetensors names it.
type StoredDType string

// The element types weights files hold here: PyTorch's float32, float64
// and int64 (the last for BatchNorm's num_batches_tracked).
const (
	F32 StoredDType = "F32"
	F64 StoredDType = "F64"
	I64 StoredDType = "I64"
)

// size returns the bytes of one element, or 0 for an unknown type.
func (d StoredDType) size() int {
	switch d {
	case F32:
		return 4
	case F64, I64:
		return 8
	}
	return 0
}

// Entry is one tensor of a state dict as a file holds it: its PyTorch name
// ("0.weight", "2.running_mean"), element type, shape and row-major
// little-endian bytes.
type Entry struct {
	Name  string
	DType StoredDType
	Shape []int
	Data  []byte
}

// StateDict is a model's parameters and buffers under PyTorch's names, in
// the order PyTorch's module.state_dict() lists them. Its entries are
// copies: changing one changes no model.
type StateDict []Entry

// Names returns the entries' names in order.
func (sd StateDict) Names() []string {
	names := make([]string, len(sd))
	for i, e := range sd {
		names[i] = e.Name
	}
	return names
}

// Get returns the entry called name.
func (sd StateDict) Get(name string) (Entry, bool) {
	for _, e := range sd {
		if e.Name == name {
			return e, true
		}
	}
	return Entry{}, false
}

// Float64s returns the entry's values as float64 (exact for F32 and F64,
// and for I64 values below 2⁵³).
func (e Entry) Float64s() []float64 {
	n := e.DType.size()
	out := make([]float64, len(e.Data)/max(n, 1))
	for i := range out {
		b := e.Data[i*n:]
		switch e.DType {
		case F32:
			out[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
		case F64:
			out[i] = math.Float64frombits(binary.LittleEndian.Uint64(b))
		case I64:
			out[i] = float64(int64(binary.LittleEndian.Uint64(b)))
		}
	}
	return out
}

// check returns an error unless the entry's bytes fit its type and shape.
func (e Entry) check() error {
	n := e.DType.size()
	if n == 0 {
		return fmt.Errorf("nn: tensor %q has element type %q; weights here are F32, F64 or I64", e.Name, e.DType)
	}
	count := 1
	for _, s := range e.Shape {
		if s < 0 {
			return fmt.Errorf("nn: tensor %q has a negative size in shape %v", e.Name, e.Shape)
		}
		count *= s
	}
	if len(e.Data) != count*n {
		return fmt.Errorf("nn: tensor %q of shape %v and type %s should hold %d bytes; it holds %d", e.Name, e.Shape, e.DType, count*n, len(e.Data))
	}
	return nil
}

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
// Float32 and float64 tensors are stored as F32 and F64; BatchNorm's
// num_batches_tracked as PyTorch's 0-d int64. Tensors on a device are read
// back; GetStateDict returns the device's error.
func GetStateDict(m Module) (StateDict, error) {
	ss, err := slots(m)
	if err != nil {
		return nil, err
	}
	sd := make(StateDict, len(ss))
	for i, s := range ss {
		if s.count {
			c, err := s.t.To(autograd.CPU)
			if err != nil {
				return nil, fmt.Errorf("nn: reading %q back from %v: %w", s.name, s.t.Device(), err)
			}
			sd[i] = Entry{Name: s.name, DType: I64, Shape: []int{},
				Data: binary.LittleEndian.AppendUint64(nil, uint64(int64(c.At(0))))}
			continue
		}
		if sd[i], err = EntryOf(s.name, s.t); err != nil {
			return nil, err
		}
	}
	return sd, nil
}

// EntryOf returns t as a state dict entry called name: F32 for a float32
// tensor, F64 for a float64 one, read back from its device.
func EntryOf(name string, t *autograd.Tensor) (Entry, error) {
	c, err := t.To(autograd.CPU)
	if err != nil {
		return Entry{}, fmt.Errorf("nn: reading %q back from %v: %w", name, t.Device(), err)
	}
	e := Entry{Name: name, DType: F32, Shape: slices.Clone(c.Shape())}
	if c.DType() == autograd.Float64 {
		e.DType = F64
		for _, v := range c.Data64() {
			e.Data = binary.LittleEndian.AppendUint64(e.Data, math.Float64bits(v))
		}
		return e, nil
	}
	for _, v := range c.Data32() {
		e.Data = binary.LittleEndian.AppendUint32(e.Data, math.Float32bits(v))
	}
	return e, nil
}

// Tensor returns the entry as a new CPU tensor: float32 for F32, float64
// for F64 and I64.
func (e Entry) Tensor() (*autograd.Tensor, error) {
	if err := e.check(); err != nil {
		return nil, err
	}
	dtype := autograd.Float64
	if e.DType == F32 {
		dtype = autograd.Float32
	}
	t := autograd.Zeros(dtype, e.Shape...)
	for i, v := range e.Float64s() {
		t.SetAt(i, v)
	}
	return t, nil
}

// LoadStateDict copies sd into m's parameters and buffers in place (on
// whatever device each lives), as module.load_state_dict(sd, strict=True),
// and stricter: it returns an error naming the tensor, and changes nothing,
// when sd lacks a tensor of m, holds one m does not have, or holds one of
// another shape or element type (F32 for a float32 tensor, F64 for a
// float64 one, I64 of shape [] for num_batches_tracked).
func LoadStateDict(m Module, sd StateDict) error {
	ss, err := slots(m)
	if err != nil {
		return err
	}
	byName := make(map[string]Entry, len(sd))
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
		if err := e.check(); err != nil {
			return err
		}
		want, shape := F32, s.t.Shape()
		switch {
		case s.count:
			want, shape = I64, []int{}
		case s.t.DType() == autograd.Float64:
			want = F64
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
