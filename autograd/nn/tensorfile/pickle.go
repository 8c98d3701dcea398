package tensorfile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
)

// A small pickler: the protocol-2 opcodes that torch.save uses for a state
// dict of tensors and for an optimiser's state_dict(), and nothing else.
// Python values are written from these Go values:
//
//	nil → None, bool, int, float64, string (str)
//	PyTuple → tuple, []any → list
//	PyDict → dict, OrderedDict → collections.OrderedDict (keys in order)
//	TorchTensor → torch._utils._rebuild_tensor_v2 over a persistent storage

// PyTuple is a Python tuple for the pickler.
type PyTuple []any

// PyDict is a Python dict with its keys in order (str or int keys).
type PyDict struct {
	Keys   []any
	Values []any
}

// Set appends key → value.
func (d *PyDict) Set(key, value any) {
	d.Keys = append(d.Keys, key)
	d.Values = append(d.Values, value)
}

// OrderedDict is a collections.OrderedDict for the pickler.
type OrderedDict struct{ PyDict }

// TorchTensor is a tensor in a torch.save file: its storage record's key
// (the file archive/data/<key>) and its element type and shape, contiguous
// from the storage's start.
type TorchTensor struct {
	Key   string
	DType StoredDType
	Shape []int
}

// Pickle opcodes (Python's Lib/pickle.py).
const (
	opProto      = 0x80
	opStop       = '.'
	opGlobal     = 'c'
	opMark       = '('
	opTuple      = 't'
	opEmptyTuple = ')'
	opTuple1     = 0x85
	opTuple2     = 0x86
	opTuple3     = 0x87
	opEmptyList  = ']'
	opAppends    = 'e'
	opEmptyDict  = '}'
	opSetItems   = 'u'
	opReduce     = 'R'
	opBinPersID  = 'Q'
	opBinUnicode = 'X'
	opBinInt     = 'J'
	opBinInt1    = 'K'
	opBinInt2    = 'M'
	opLong1      = 0x8a
	opBinFloat   = 'G'
	opNone       = 'N'
	opTrue       = 0x88
	opFalse      = 0x89
)

// storageClass is the torch storage class of each element type, as
// torch.save names it.
var storageClass = map[StoredDType]string{F32: "FloatStorage", F64: "DoubleStorage", I64: "LongStorage"}

type pickler struct{ buf bytes.Buffer }

// pickleValue returns v pickled with protocol 2.
func pickleValue(v any) ([]byte, error) {
	var p pickler
	p.buf.Write([]byte{opProto, 2})
	if err := p.value(v); err != nil {
		return nil, err
	}
	p.buf.WriteByte(opStop)
	return p.buf.Bytes(), nil
}

func (p *pickler) global(module, name string) {
	p.buf.WriteByte(opGlobal)
	p.buf.WriteString(module + "\n" + name + "\n")
}

func (p *pickler) value(v any) error {
	b := &p.buf
	switch v := v.(type) {
	case nil:
		b.WriteByte(opNone)
	case bool:
		if v {
			b.WriteByte(opTrue)
		} else {
			b.WriteByte(opFalse)
		}
	case int:
		p.int(int64(v))
	case int64:
		p.int(v)
	case float64:
		b.WriteByte(opBinFloat)
		b.Write(binary.BigEndian.AppendUint64(nil, math.Float64bits(v)))
	case string:
		b.WriteByte(opBinUnicode)
		b.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(v))))
		b.WriteString(v)
	case PyTuple:
		return p.tuple(v)
	case []any:
		b.WriteByte(opEmptyList)
		if len(v) > 0 {
			b.WriteByte(opMark)
			for _, x := range v {
				if err := p.value(x); err != nil {
					return err
				}
			}
			b.WriteByte(opAppends)
		}
	case *PyDict:
		b.WriteByte(opEmptyDict)
		return p.items(v)
	case *OrderedDict:
		p.global("collections", "OrderedDict")
		b.WriteByte(opEmptyTuple)
		b.WriteByte(opReduce)
		return p.items(&v.PyDict)
	case TorchTensor:
		return p.tensor(v)
	default:
		return fmt.Errorf("tensorfile: pickling a %T: not a value a state dict holds", v)
	}
	return nil
}

func (p *pickler) int(v int64) {
	b := &p.buf
	switch {
	case v >= 0 && v < 1<<8:
		b.Write([]byte{opBinInt1, byte(v)})
	case v >= 0 && v < 1<<16:
		b.WriteByte(opBinInt2)
		b.Write(binary.LittleEndian.AppendUint16(nil, uint16(v)))
	case v >= math.MinInt32 && v <= math.MaxInt32:
		b.WriteByte(opBinInt)
		b.Write(binary.LittleEndian.AppendUint32(nil, uint32(int32(v))))
	default: // eight bytes of two's complement, as pickle's LONG1 takes them
		b.Write([]byte{opLong1, 8})
		b.Write(binary.LittleEndian.AppendUint64(nil, uint64(v)))
	}
}

func (p *pickler) tuple(t PyTuple) error {
	b := &p.buf
	if len(t) == 0 {
		b.WriteByte(opEmptyTuple)
		return nil
	}
	if len(t) > 3 {
		b.WriteByte(opMark)
	}
	for _, x := range t {
		if err := p.value(x); err != nil {
			return err
		}
	}
	switch len(t) {
	case 1:
		b.WriteByte(opTuple1)
	case 2:
		b.WriteByte(opTuple2)
	case 3:
		b.WriteByte(opTuple3)
	default:
		b.WriteByte(opTuple)
	}
	return nil
}

func (p *pickler) items(d *PyDict) error {
	if len(d.Keys) == 0 {
		return nil
	}
	p.buf.WriteByte(opMark)
	for i, k := range d.Keys {
		if err := p.value(k); err != nil {
			return err
		}
		if err := p.value(d.Values[i]); err != nil {
			return err
		}
	}
	p.buf.WriteByte(opSetItems)
	return nil
}

// tensor writes torch._utils._rebuild_tensor_v2(storage, 0, shape, stride,
// False, OrderedDict()) with the storage a persistent id ("storage",
// torch.<Type>Storage, key, "cpu", numel), as torch.save does.
func (p *pickler) tensor(t TorchTensor) error {
	class, ok := storageClass[t.DType]
	if !ok {
		return fmt.Errorf("tensorfile: torch.save format: no storage class for element type %q", t.DType)
	}
	numel := 1
	for _, s := range t.Shape {
		numel *= s
	}
	shape, stride := make(PyTuple, len(t.Shape)), make(PyTuple, len(t.Shape))
	step := 1
	for i := len(t.Shape) - 1; i >= 0; i-- {
		shape[i], stride[i] = t.Shape[i], step
		step *= t.Shape[i]
	}
	b := &p.buf
	p.global("torch._utils", "_rebuild_tensor_v2")
	b.WriteByte(opMark)
	b.WriteByte(opMark)
	if err := p.value("storage"); err != nil {
		return err
	}
	p.global("torch", class)
	for _, v := range []any{t.Key, "cpu", numel} {
		if err := p.value(v); err != nil {
			return err
		}
	}
	b.WriteByte(opTuple)
	b.WriteByte(opBinPersID)
	for _, v := range []any{0, shape, stride, false} {
		if err := p.value(v); err != nil {
			return err
		}
	}
	p.global("collections", "OrderedDict")
	b.WriteByte(opEmptyTuple)
	b.WriteByte(opReduce)
	b.WriteByte(opTuple)
	b.WriteByte(opReduce)
	return nil
}
