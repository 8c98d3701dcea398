//go:build !js

// NOTE: not in WebAssembly builds either, like npyread.go: the browser page
// writes no files.

package state

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strings"

	"codeberg.org/sbinet/npyio/npy"
)

// DType is the element type of an .npy file NPYWriter writes, as NumPy
// names it in the header.
type DType string

const (
	Uint8   DType = "|u1" // hard states: 0 or 1, one byte each
	Float32 DType = "<f4" // soft states: little-endian float32
	Int32   DType = "<i4" // indices (a model's wiring, dlca export -format npz): little-endian int32
)

// NPYWriter writes an .npy array whose shape is known before its data, in
// C order, as it is produced: the header first, then the values in
// whatever pieces the caller has (a state at a time, a row at a time).
//
// NOTE: npyio.Write takes the whole array as one Go value, so a rollout's
// states would have to sit in memory together; this writes the same format
// (the version 1.0 header NumPy writes) ahead of the values instead. Its
// tests read the result back with npyio.
type NPYWriter struct {
	w           io.Writer
	dtype       DType
	left        int64  // values still to write
	buf         []byte // reused for float32 encoding
	shapeString string
}

// NewNPYWriter writes the header of an array of dtype and shape to w and
// returns the writer of its values.
func NewNPYWriter(w io.Writer, dtype DType, shape ...int) (*NPYWriter, error) {
	if dtype != Uint8 && dtype != Float32 && dtype != Int32 {
		return nil, fmt.Errorf("state: NewNPYWriter: dtype %q, want Uint8, Float32 or Int32", dtype)
	}
	n := int64(1)
	for _, d := range shape {
		if d < 0 {
			return nil, fmt.Errorf("state: NewNPYWriter: negative dimension in shape %v", shape)
		}
		n *= int64(d)
	}
	if _, err := w.Write(npyHeader(dtype, shape)); err != nil {
		return nil, err
	}
	return &NPYWriter{w: w, dtype: dtype, left: n, shapeString: ShapeString(shape)}, nil
}

// npyHeader returns the version 1.0 header of an array: the magic string,
// the version, the length of the dictionary that follows, and the
// dictionary padded with spaces and ended by a newline so that the data
// starts at a multiple of 64 bytes, as NumPy's format specification asks.
func npyHeader(dtype DType, shape []int) []byte {
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", dtype, ShapeString(shape))
	const prefix = len(npy.Magic) + 2 + 2 // magic, version, uint16 length
	total := (prefix + len(dict) + 1 + 63) / 64 * 64
	var b bytes.Buffer
	b.Write(npy.Magic[:])
	b.Write([]byte{1, 0})
	binary.Write(&b, binary.LittleEndian, uint16(total-prefix))
	b.WriteString(dict)
	b.Write(bytes.Repeat([]byte{' '}, total-prefix-len(dict)-1))
	b.WriteByte('\n')
	return b.Bytes()
}

// WriteUint8 writes the next values of a Uint8 array.
func (n *NPYWriter) WriteUint8(v []uint8) error {
	if err := n.take(Uint8, len(v)); err != nil {
		return err
	}
	_, err := n.w.Write(v)
	return err
}

// WriteFloat32 writes the next values of a Float32 array.
func (n *NPYWriter) WriteFloat32(v []float32) error {
	if err := n.take(Float32, len(v)); err != nil {
		return err
	}
	const chunk = 16 << 10 // values encoded at a time
	for len(v) > 0 {
		part := v[:min(len(v), chunk)]
		n.buf = n.buf[:0]
		for _, f := range part {
			n.buf = binary.LittleEndian.AppendUint32(n.buf, math.Float32bits(f))
		}
		if _, err := n.w.Write(n.buf); err != nil {
			return err
		}
		v = v[len(part):]
	}
	return nil
}

// WriteInt32 writes the next values of an Int32 array.
func (n *NPYWriter) WriteInt32(v []int32) error {
	if err := n.take(Int32, len(v)); err != nil {
		return err
	}
	n.buf = n.buf[:0]
	for _, x := range v {
		n.buf = binary.LittleEndian.AppendUint32(n.buf, uint32(x))
	}
	_, err := n.w.Write(n.buf)
	return err
}

// take accounts for count values of dtype about to be written.
func (n *NPYWriter) take(dtype DType, count int) error {
	if dtype != n.dtype {
		return fmt.Errorf("state: writing %s values to a %s array", dtype, n.dtype)
	}
	if int64(count) > n.left {
		return fmt.Errorf("state: more values than the shape %s holds", n.shapeString)
	}
	n.left -= int64(count)
	return nil
}

// Close returns an error unless every value the shape promised was
// written: a shorter file would not load. It does not close the
// underlying writer.
func (n *NPYWriter) Close() error {
	if n.left != 0 {
		return fmt.Errorf("state: %d values of the shape %s were not written", n.left, n.shapeString)
	}
	return nil
}

// WriteNPY writes s to w as an .npy array [H, W, C] of dtype.
func WriteNPY(w io.Writer, s *State, dtype DType) error {
	nw, err := NewNPYWriter(w, dtype, s.Height, s.Width, s.Channels)
	if err != nil {
		return err
	}
	if dtype == Float32 {
		err = nw.WriteFloat32(s.Values)
	} else {
		bits := make([]uint8, len(s.Values))
		for i, v := range s.Values {
			if v > 0.5 {
				bits[i] = 1
			}
		}
		err = nw.WriteUint8(bits)
	}
	if err != nil {
		return err
	}
	return nw.Close()
}

// ShapeString writes a shape as NumPy prints it: (3,), (4, 5, 8).
func ShapeString(shape []int) string {
	parts := make([]string, len(shape))
	for i, n := range shape {
		parts[i] = fmt.Sprint(n)
	}
	if len(shape) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
