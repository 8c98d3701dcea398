package tensorfile

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

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

// Size returns the bytes of one element, or 0 for an unknown type.
func (d StoredDType) Size() int {
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
	n := e.DType.Size()
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

// Check returns an error unless the entry's bytes fit its type and shape.
func (e Entry) Check() error {
	n := e.DType.Size()
	if n == 0 {
		return fmt.Errorf("tensorfile: tensor %q has element type %q; weights here are F32, F64 or I64", e.Name, e.DType)
	}
	count := 1
	for _, s := range e.Shape {
		if s < 0 {
			return fmt.Errorf("tensorfile: tensor %q has a negative size in shape %v", e.Name, e.Shape)
		}
		count *= s
	}
	if len(e.Data) != count*n {
		return fmt.Errorf("tensorfile: tensor %q of shape %v and type %s should hold %d bytes; it holds %d", e.Name, e.Shape, e.DType, count*n, len(e.Data))
	}
	return nil
}

// EntryOf returns t as a state dict entry called name: F32 for a float32
// tensor, F64 for a float64 one, read back from its device.
func EntryOf(name string, t *autograd.Tensor) (Entry, error) {
	c, err := t.To(autograd.CPU)
	if err != nil {
		return Entry{}, fmt.Errorf("tensorfile: reading %q back from %v: %w", name, t.Device(), err)
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
	if err := e.Check(); err != nil {
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
