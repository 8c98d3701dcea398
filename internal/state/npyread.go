//go:build !js

// NOTE: not in WebAssembly builds: the browser training page (web/trainwasm)
// reads no files, and npyio's reader would add about 1.4 MB to its 12 MB
// (npyread_js.go stands in).

package state

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"

	"codeberg.org/sbinet/npyio"
	"codeberg.org/sbinet/npyio/npy"
)

// maxHeader bounds an .npy header: NumPy's own are about 128 bytes, and
// npyio allocates whatever length the file claims.
const maxHeader = 1 << 16

// ReadNPY reads a state from a NumPy .npy array [H, W, C] with C =
// spec.Channels ([H, W] when that is 1) whose values spec allows.
func ReadNPY(r io.Reader, spec Spec) (*State, error) {
	br := bufio.NewReader(r)
	if err := checkHeaderLength(br); err != nil {
		return nil, err
	}
	rd, err := npyio.NewReader(br)
	if err != nil {
		return nil, fmt.Errorf("not a NumPy .npy file: %w", err)
	}
	shape := rd.Header.Descr.Shape
	if len(shape) == 2 && spec.Channels == 1 {
		shape = append(shape, 1)
	}
	if len(shape) != 3 || shape[2] != spec.Channels {
		return nil, fmt.Errorf("the array has shape %s; want (H, W, %d): height, width and the model's %d channels", shapeString(rd.Header.Descr.Shape), spec.Channels, spec.Channels)
	}
	h, w, c := shape[0], shape[1], shape[2]
	if err := spec.checkSize(h, w); err != nil {
		return nil, err
	}
	values, err := readValues(rd, h*w*c)
	if err != nil {
		return nil, err
	}
	if rd.Header.Descr.Fortran {
		values = fromFortran(values, h, w, c)
	}
	s := &State{Height: h, Width: w, Channels: c, Values: values}
	if err := spec.checkValues(s); err != nil {
		return nil, err
	}
	return s, nil
}

// checkHeaderLength refuses a file whose header claims more than
// maxHeader bytes, before npyio allocates them. A file too short to say is
// left for npyio to refuse.
func checkHeaderLength(br *bufio.Reader) error {
	b, err := br.Peek(12)
	if err != nil || !bytes.Equal(b[:6], npy.Magic[:]) {
		return nil
	}
	n := uint32(binary.LittleEndian.Uint16(b[8:]))
	if b[6] >= 2 {
		n = binary.LittleEndian.Uint32(b[8:])
	}
	if n > maxHeader {
		return fmt.Errorf("the .npy header claims %d bytes; a NumPy array's header is a few hundred", n)
	}
	return nil
}

// readValues reads n values of the array rd describes as float32s.
func readValues(rd *npyio.Reader, n int) ([]float32, error) {
	dtype := strings.Trim(rd.Header.Descr.Type, `'"`)
	var values []float32
	var err error
	switch strings.TrimLeft(dtype, "<>|=") {
	case "b1":
		values, err = readBool(rd, n)
	case "u1":
		values, err = read[uint8](rd, n)
	case "u2":
		values, err = read[uint16](rd, n)
	case "u4":
		values, err = read[uint32](rd, n)
	case "u8":
		values, err = read[uint64](rd, n)
	case "i1":
		values, err = read[int8](rd, n)
	case "i2":
		values, err = read[int16](rd, n)
	case "i4":
		values, err = read[int32](rd, n)
	case "i8":
		values, err = read[int64](rd, n)
	case "f4":
		values, err = read[float32](rd, n)
	case "f8":
		values, err = read[float64](rd, n)
	default:
		return nil, fmt.Errorf("the array's dtype is %s; want bool, uint8, an integer or float32/float64 (arr.astype(np.uint8))", dtype)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fmt.Errorf("the file ends before the %d values its header promises", n)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the array: %w", err)
	}
	return values, nil
}

// number is what an .npy state may hold besides bool.
type number interface {
	uint8 | uint16 | uint32 | uint64 | int8 | int16 | int32 | int64 | float32 | float64
}

// read reads n values of type T with npyio and converts them to float32.
func read[T number](rd *npyio.Reader, n int) ([]float32, error) {
	data := make([]T, n)
	if err := rd.Read(&data); err != nil {
		return nil, err
	}
	out := make([]float32, n)
	for i, v := range data {
		out[i] = float32(v)
	}
	return out, nil
}

// readBool reads n bools with npyio as 0s and 1s.
func readBool(rd *npyio.Reader, n int) ([]float32, error) {
	data := make([]bool, n)
	if err := rd.Read(&data); err != nil {
		return nil, err
	}
	out := make([]float32, n)
	for i, v := range data {
		if v {
			out[i] = 1
		}
	}
	return out, nil
}

// fromFortran reorders an [h, w, c] array stored in Fortran (column-major)
// order into C order.
func fromFortran(f []float32, h, w, c int) []float32 {
	out := make([]float32, len(f))
	for y := range h {
		for x := range w {
			for k := range c {
				out[(y*w+x)*c+k] = f[y+h*(x+w*k)]
			}
		}
	}
	return out
}
