package tensorfile

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"sort"
)

// The safetensors format (huggingface/safetensors): an 8-byte little-endian
// header length N, N bytes of JSON mapping each tensor's name to its dtype,
// shape and [begin, end) byte offsets in the data that follows (and an
// optional "__metadata__" of string pairs), padded with spaces to a
// multiple of 8, then the tensors' raw little-endian bytes back to back.

// maxSafetensorsHeader bounds the JSON header read from a file, as the
// reference implementation does (100 MB), so a damaged length does not ask
// for gigabytes.
const maxSafetensorsHeader = 100 << 20

type safetensorsInfo struct {
	DType       StoredDType `json:"dtype"`
	Shape       []int       `json:"shape"`
	DataOffsets [2]int64    `json:"data_offsets"`
}

// WriteSafetensors writes sd to w in the safetensors format, with metadata
// (may be nil) as its "__metadata__".
func WriteSafetensors(w io.Writer, sd StateDict, metadata map[string]string) error {
	header := map[string]any{}
	if len(metadata) > 0 {
		header["__metadata__"] = metadata
	}
	var offset int64
	for _, e := range sd {
		if err := e.Check(); err != nil {
			return err
		}
		if _, dup := header[e.Name]; dup || e.Name == "__metadata__" {
			return fmt.Errorf("tensorfile: safetensors: tensor name %q is used twice or reserved", e.Name)
		}
		end := offset + int64(len(e.Data))
		header[e.Name] = safetensorsInfo{DType: e.DType, Shape: nonNil(e.Shape), DataOffsets: [2]int64{offset, end}}
		offset = end
	}
	js, err := json.Marshal(header) // keys sorted: the file does not depend on map order
	if err != nil {
		return err
	}
	for len(js)%8 != 0 {
		js = append(js, ' ')
	}
	buf := binary.LittleEndian.AppendUint64(nil, uint64(len(js)))
	if _, err := w.Write(append(buf, js...)); err != nil {
		return err
	}
	for _, e := range sd {
		if _, err := w.Write(e.Data); err != nil {
			return err
		}
	}
	return nil
}

func nonNil(shape []int) []int {
	if shape == nil {
		return []int{}
	}
	return shape
}

// ReadSafetensors reads a safetensors file's tensors (in the order of their
// data in the file) and metadata. It returns an error on a header that does
// not parse, an element type other than F32, F64 and I64, and offsets that
// do not tile the data exactly (overlapping, out of range, or leaving bytes
// unaccounted for), as the reference implementation refuses them.
func ReadSafetensors(r io.Reader) (StateDict, map[string]string, error) {
	var lenBuf [8]byte
	if _, err := io.ReadFull(r, lenBuf[:]); err != nil {
		return nil, nil, fmt.Errorf("tensorfile: safetensors: reading the header length: %w", err)
	}
	n := binary.LittleEndian.Uint64(lenBuf[:])
	if n > maxSafetensorsHeader {
		return nil, nil, fmt.Errorf("tensorfile: safetensors: header length %d exceeds %d bytes (is this a safetensors file?)", n, maxSafetensorsHeader)
	}
	js := make([]byte, n)
	if _, err := io.ReadFull(r, js); err != nil {
		return nil, nil, fmt.Errorf("tensorfile: safetensors: reading the %d-byte header: %w", n, err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(js, &raw); err != nil {
		return nil, nil, fmt.Errorf("tensorfile: safetensors: the header is not a JSON object: %w", err)
	}
	var metadata map[string]string
	if m, ok := raw["__metadata__"]; ok {
		if err := json.Unmarshal(m, &metadata); err != nil {
			return nil, nil, fmt.Errorf("tensorfile: safetensors: __metadata__ is not an object of strings: %w", err)
		}
		delete(raw, "__metadata__")
	}
	type named struct {
		name string
		info safetensorsInfo
	}
	infos := make([]named, 0, len(raw))
	for name, m := range raw {
		var info safetensorsInfo
		dec := json.NewDecoder(bytes.NewReader(m))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&info); err != nil {
			return nil, nil, fmt.Errorf("tensorfile: safetensors: tensor %q: %w", name, err)
		}
		infos = append(infos, named{name, info})
	}
	sort.Slice(infos, func(i, j int) bool { return infos[i].info.DataOffsets[0] < infos[j].info.DataOffsets[0] })
	sd := make(StateDict, 0, len(infos))
	var offset int64
	for _, in := range infos {
		b, e := in.info.DataOffsets[0], in.info.DataOffsets[1]
		if b != offset || e < b {
			return nil, nil, fmt.Errorf("tensorfile: safetensors: tensor %q has data offsets [%d, %d]; the data so far ends at %d (overlapping or missing bytes)", in.name, b, e, offset)
		}
		entry := Entry{Name: in.name, DType: in.info.DType, Shape: nonNil(in.info.Shape), Data: make([]byte, e-b)}
		if err := entry.Check(); err != nil {
			return nil, nil, fmt.Errorf("%w (safetensors)", err)
		}
		if _, err := io.ReadFull(r, entry.Data); err != nil {
			return nil, nil, fmt.Errorf("tensorfile: safetensors: reading tensor %q: %w", in.name, err)
		}
		sd = append(sd, entry)
		offset = e
	}
	if extra, _ := io.Copy(io.Discard, io.LimitReader(r, 1)); extra != 0 {
		return nil, nil, fmt.Errorf("tensorfile: safetensors: bytes after the last tensor (at %d); the file is damaged", offset)
	}
	return sd, metadata, nil
}
