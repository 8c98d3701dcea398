package tensorfile

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math/big"
	"strconv"
	"strings"

	"github.com/nlpodyssey/gopickle/pickle"
	"github.com/nlpodyssey/gopickle/types"
)

// PyTorch's torch.save format (the zip format of PyTorch 1.6 and later): a
// zip archive, stored without compression, of records under one folder
// ("archive/"): data.pkl, the pickled object whose tensors refer to their
// storages by persistent id; data/<key>, each storage's raw little-endian
// bytes; version ("3\n"); and byteorder ("little"), which PyTorch 2.x
// writes. PyTorch's writer starts every record's data at a multiple of 64
// bytes in the file (padding the local header's extra field), so the
// records can be memory-mapped; this writer does the same.

const (
	torchArchive   = "archive"
	torchAlignment = 64
	torchVersion   = "3\n"
)

// WriteTorch writes sd to w as torch.save(state_dict) writes it: an
// OrderedDict of name → tensor, which torch.load(path, weights_only=True)
// reads.
func WriteTorch(w io.Writer, sd StateDict) error {
	dict := &OrderedDict{}
	var storages [][]byte
	for i, e := range sd {
		if err := e.Check(); err != nil {
			return err
		}
		dict.Set(e.Name, TorchTensor{Key: strconv.Itoa(i), DType: e.DType, Shape: nonNil(e.Shape)})
		storages = append(storages, e.Data)
	}
	return WriteTorchObject(w, dict, storages)
}

// WriteTorchObject writes obj (see PyTuple for the values it may hold) in
// the torch.save format, with storages[i] the bytes of the storage whose
// TorchTensor key is strconv.Itoa(i).
func WriteTorchObject(w io.Writer, obj any, storages [][]byte) error {
	pkl, err := pickleValue(obj)
	if err != nil {
		return err
	}
	records := []torchRecord{{"data.pkl", pkl}, {"byteorder", []byte("little")}}
	for i, s := range storages {
		records = append(records, torchRecord{"data/" + strconv.Itoa(i), s})
	}
	records = append(records, torchRecord{"version", []byte(torchVersion)})
	return writeTorchZip(w, records)
}

type torchRecord struct {
	name string
	data []byte
}

// writeTorchZip writes the records stored (uncompressed) under
// torchArchive, each one's data aligned to torchAlignment bytes.
func writeTorchZip(w io.Writer, records []torchRecord) error {
	zw := zip.NewWriter(w)
	var offset int
	for _, r := range records {
		name := torchArchive + "/" + r.name
		// The local header is 30 bytes, the name, then the extra field:
		// a padding field (id "FB", as PyTorch's writer uses) of 4 bytes
		// of header and pad bytes that bring the data to the alignment.
		start := offset + 30 + len(name) + 4
		pad := (torchAlignment - start%torchAlignment) % torchAlignment
		extra := binary.LittleEndian.AppendUint16(nil, 0x4246) // "FB"
		extra = binary.LittleEndian.AppendUint16(extra, uint16(pad))
		extra = append(extra, bytes.Repeat([]byte{'Z'}, pad)...)
		fh := &zip.FileHeader{
			Name: name, Method: zip.Store, Extra: extra,
			CRC32:              crc32.ChecksumIEEE(r.data),
			CompressedSize64:   uint64(len(r.data)),
			UncompressedSize64: uint64(len(r.data)),
		}
		fw, err := zw.CreateRaw(fh)
		if err != nil {
			return err
		}
		if _, err := fw.Write(r.data); err != nil {
			return err
		}
		offset = start + pad + len(r.data)
	}
	return zw.Close()
}

// ReadTorch reads a torch.save file of a state dict (a dict or OrderedDict
// of name → tensor, as torch.save(model.state_dict(), path) writes) from r
// of size bytes. Tensors may be views (an offset and strides into a shared
// storage); each entry is a contiguous copy.
func ReadTorch(r io.ReaderAt, size int64) (StateDict, error) {
	obj, err := ReadTorchObject(r, size)
	if err != nil {
		return nil, err
	}
	var d *PyDict
	switch v := obj.(type) {
	case *OrderedDict:
		d = &v.PyDict
	case *PyDict:
		d = v
	default:
		return nil, fmt.Errorf("tensorfile: torch.save file holds a %s, not a state dict (a dict of name → tensor)", pyTypeName(obj))
	}
	sd := make(StateDict, len(d.Keys))
	for i, k := range d.Keys {
		name, ok := k.(string)
		if !ok {
			return nil, fmt.Errorf("tensorfile: torch.save state dict has a key %v of type %s; want str", k, pyTypeName(k))
		}
		e, ok := d.Values[i].(Entry)
		if !ok {
			return nil, fmt.Errorf("tensorfile: torch.save state dict's %q is a %s, not a tensor", name, pyTypeName(d.Values[i]))
		}
		e.Name = name
		sd[i] = e
	}
	return sd, nil
}

// ReadTorchObject reads the object a torch.save file holds, as
// torch.load(weights_only=True) does: only dicts, OrderedDicts, lists,
// tuples, str, int, float, bool, None and tensors of float32, float64 or
// int64 (as Entry, without a name); any other Python class is an error
// naming it, so a file cannot make the reader run anything. Dicts come
// back as *PyDict, OrderedDicts as *OrderedDict, tuples as PyTuple and
// lists as []any.
func ReadTorchObject(r io.ReaderAt, size int64) (any, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("tensorfile: not a torch.save zip file: %w", err)
	}
	records := map[string]*zip.File{}
	prefix := ""
	for _, f := range zr.File {
		records[f.Name] = f
		if dir, ok := strings.CutSuffix(f.Name, "/data.pkl"); ok && !strings.Contains(dir, "/") {
			prefix = dir + "/"
		}
	}
	if prefix == "" {
		return nil, fmt.Errorf("tensorfile: torch.save file has no <archive>/data.pkl (is it TorchScript, or the legacy pre-1.6 format?)")
	}
	if _, ok := records[prefix+"constants.pkl"]; ok {
		return nil, fmt.Errorf("tensorfile: the file is a TorchScript archive (torch.jit.save), not torch.save")
	}
	if f, ok := records[prefix+"byteorder"]; ok {
		b, err := readRecord(f)
		if err != nil {
			return nil, err
		}
		if string(b) != "little" {
			return nil, fmt.Errorf("tensorfile: torch.save file is %q-endian; only little-endian files are read", b)
		}
	}
	pkl, err := readRecord(records[prefix+"data.pkl"])
	if err != nil {
		return nil, err
	}
	u := pickle.NewUnpickler(bytes.NewReader(pkl))
	u.FindClass = findTorchClass
	u.PersistentLoad = func(id any) (any, error) {
		t, ok := id.(*types.Tuple)
		if !ok || t.Len() != 5 || t.Get(0) != "storage" {
			return nil, fmt.Errorf("persistent id %v is not (\"storage\", type, key, location, numel)", id)
		}
		class, ok1 := t.Get(1).(storageType)
		key, ok2 := t.Get(2).(string)
		numel, ok3 := t.Get(4).(int)
		if !ok1 || !ok2 || !ok3 {
			return nil, fmt.Errorf("persistent id %v is not (\"storage\", type, key, location, numel)", id)
		}
		f, ok := records[prefix+"data/"+key]
		if !ok {
			return nil, fmt.Errorf("storage %q has no record data/%s", key, key)
		}
		data, err := readRecord(f)
		if err != nil {
			return nil, err
		}
		if len(data) != numel*class.dtype.Size() {
			return nil, fmt.Errorf("storage %q holds %d bytes; %d elements of %s need %d", key, len(data), numel, class.dtype, numel*class.dtype.Size())
		}
		return storage{dtype: class.dtype, data: data}, nil
	}
	obj, err := u.Load()
	if err != nil {
		return nil, fmt.Errorf("tensorfile: torch.save file's data.pkl: %w", err)
	}
	return fromPickle(obj)
}

func readRecord(f *zip.File) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("tensorfile: torch.save record %s: %w", f.Name, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		return nil, fmt.Errorf("tensorfile: torch.save record %s: %w", f.Name, err)
	}
	return b, nil
}

// storageType is a torch.<Type>Storage class; storage is one loaded.
type storageType struct{ dtype StoredDType }

type storage struct {
	dtype StoredDType
	data  []byte
}

// findTorchClass resolves the globals a state dict's pickle names, the
// way torch.load(weights_only=True) allows them (collections.OrderedDict
// is resolved by the unpickler itself).
func findTorchClass(module, name string) (any, error) {
	switch module + "." + name {
	case "torch._utils._rebuild_tensor_v2":
		return callable(rebuildTensor), nil
	case "torch._utils._rebuild_parameter":
		return callable(rebuildParameter), nil
	}
	if module == "torch" {
		for dtype, class := range storageClass {
			if name == class {
				return storageType{dtype}, nil
			}
		}
	}
	return nil, fmt.Errorf("the pickle names %s.%s, which a weights file does not hold (only tensors of float32, float64 and int64 in dicts, lists and tuples are read)", module, name)
}

type callable func(args ...any) (any, error)

func (c callable) Call(args ...any) (any, error) { return c(args...) }

// rebuildTensor is torch._utils._rebuild_tensor_v2(storage, offset, size,
// stride, requires_grad, backward_hooks[, metadata]): it copies the view's
// elements out of the storage, in row-major order.
func rebuildTensor(args ...any) (any, error) {
	if len(args) < 4 {
		return nil, fmt.Errorf("_rebuild_tensor_v2 with %d arguments", len(args))
	}
	s, ok1 := args[0].(storage)
	offset, ok2 := args[1].(int)
	shape, err1 := intTuple(args[2])
	stride, err2 := intTuple(args[3])
	if !ok1 || !ok2 || err1 != nil || err2 != nil || len(shape) != len(stride) {
		return nil, fmt.Errorf("_rebuild_tensor_v2%v: want (storage, offset, size, stride, ...)", args)
	}
	n := s.dtype.Size()
	count := 1
	for _, d := range shape {
		count *= d
	}
	out := Entry{DType: s.dtype, Shape: shape, Data: make([]byte, 0, count*n)}
	index := make([]int, len(shape))
	for range count {
		at := offset
		for i, k := range index {
			at += k * stride[i]
		}
		if at < 0 || (at+1)*n > len(s.data) {
			return nil, fmt.Errorf("tensor of size %v, stride %v at offset %d reads past its storage of %d elements", shape, stride, offset, len(s.data)/n)
		}
		out.Data = append(out.Data, s.data[at*n:(at+1)*n]...)
		for i := len(index) - 1; i >= 0; i-- {
			if index[i]++; index[i] < shape[i] {
				break
			}
			index[i] = 0
		}
	}
	return out, nil
}

// rebuildParameter is torch._utils._rebuild_parameter(data, requires_grad,
// backward_hooks): an nn.Parameter saved as such is its tensor here.
func rebuildParameter(args ...any) (any, error) {
	if len(args) < 1 {
		return nil, fmt.Errorf("_rebuild_parameter without arguments")
	}
	if _, ok := args[0].(Entry); !ok {
		return nil, fmt.Errorf("_rebuild_parameter of a %T, not a tensor", args[0])
	}
	return args[0], nil
}

func intTuple(v any) ([]int, error) {
	t, ok := v.(*types.Tuple)
	if !ok {
		return nil, fmt.Errorf("not a tuple")
	}
	out := make([]int, t.Len())
	for i := range out {
		if out[i], ok = t.Get(i).(int); !ok || out[i] < 0 {
			return nil, fmt.Errorf("not a tuple of sizes")
		}
	}
	return out, nil
}

// fromPickle turns the unpickler's values into this package's: *PyDict,
// *OrderedDict, PyTuple, []any, Entry and Go's scalars.
func fromPickle(v any) (any, error) {
	switch v := v.(type) {
	case nil, bool, int, float64, string, Entry:
		return v, nil
	case *big.Int:
		return nil, fmt.Errorf("tensorfile: torch.save file holds the integer %v, beyond int64", v)
	case *types.Tuple:
		out := make(PyTuple, v.Len())
		for i := range out {
			x, err := fromPickle(v.Get(i))
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	case *types.List:
		out := make([]any, v.Len())
		for i := range out {
			x, err := fromPickle(v.Get(i))
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	case *types.Dict:
		out := &PyDict{}
		for _, e := range *v {
			if err := setConverted(out, e.Key, e.Value); err != nil {
				return nil, err
			}
		}
		return out, nil
	case *types.OrderedDict:
		out := &OrderedDict{}
		for el := v.List.Front(); el != nil; el = el.Next() {
			e := el.Value.(*types.OrderedDictEntry)
			if err := setConverted(&out.PyDict, e.Key, e.Value); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("tensorfile: torch.save file holds a %T, which a weights file does not", v)
}

func setConverted(d *PyDict, k, v any) error {
	ck, err := fromPickle(k)
	if err != nil {
		return err
	}
	cv, err := fromPickle(v)
	if err != nil {
		return err
	}
	d.Set(ck, cv)
	return nil
}

// pyTypeName names a converted value's Python type, for messages.
func pyTypeName(v any) string {
	switch v.(type) {
	case nil:
		return "None"
	case bool:
		return "bool"
	case int:
		return "int"
	case float64:
		return "float"
	case string:
		return "str"
	case PyTuple:
		return "tuple"
	case []any:
		return "list"
	case *PyDict:
		return "dict"
	case *OrderedDict:
		return "OrderedDict"
	case Entry:
		return "tensor"
	}
	return fmt.Sprintf("%T", v)
}
