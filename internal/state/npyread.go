//go:build !js

// NOTE: not in WebAssembly builds: the browser training page (web/trainwasm)
// reads no files, and npyio's reader would add about 1.4 MB to its 12 MB
// (npyread_js.go stands in).

package state

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"codeberg.org/sbinet/npyio"
	"codeberg.org/sbinet/npyio/npy"
)

// maxHeader bounds an .npy header: NumPy's own are about 128 bytes, and
// npyio allocates whatever length the file claims.
const maxHeader = 1 << 16

// ReadNPY reads a state from a NumPy .npy array [H, W, C] with C =
// spec.Channels ([H, W] when that is 1) whose values spec allows.
//
// NOTE: it reads the header first and checks the shape against spec, then
// reads no more data than the values need, and refuses a file that ends
// before them before they are allocated: a file of a hundred bytes could
// otherwise ask for gigabytes, and a huge file is refused by spec.MaxSide
// unread.
//
// NOTE: npyio panics on some malformed headers (no newline, its keys out
// of order: FuzzReadNPY found them); ReadNPY turns such a panic into an
// error rather than let a bad file end the command.
func ReadNPY(r io.Reader, spec Spec) (s *State, err error) {
	defer func() {
		if p := recover(); p != nil {
			s, err = nil, fmt.Errorf("not a NumPy .npy file: its header does not read (%v)", p)
		}
	}()
	header, err := readHeader(r)
	if err != nil {
		return nil, err
	}
	rd, err := npyio.NewReader(bytes.NewReader(header))
	if err != nil {
		return nil, fmt.Errorf("not a NumPy .npy file: %w", err)
	}
	shape := rd.Header.Descr.Shape
	batch := 0
	if spec.Batch && len(shape) == 4 {
		batch, shape = shape[0], shape[1:]
		switch {
		case batch < 1 || batch > MaxBatch:
			return nil, fmt.Errorf("the array has shape %s: %d states; a batch holds 1 to %d", ShapeString(rd.Header.Descr.Shape), batch, MaxBatch)
		case rd.Header.Descr.Fortran:
			return nil, fmt.Errorf("the batch array is in Fortran order; save it in C order (numpy's default; np.ascontiguousarray)")
		}
	}
	if len(shape) == 2 && spec.Channels == 1 {
		shape = append(shape, 1)
	}
	if len(shape) != 3 || shape[2] != spec.Channels {
		want := fmt.Sprintf("(H, W, %d): height, width and the model's %d channels", spec.Channels, spec.Channels)
		if spec.Batch {
			want = fmt.Sprintf("(H, W, %d) or a batch (B, H, W, %d): height, width and the model's %d channels", spec.Channels, spec.Channels, spec.Channels)
		}
		return nil, fmt.Errorf("the array has shape %s; want %s", ShapeString(rd.Header.Descr.Shape), want)
	}
	h, w, c := shape[0], shape[1], shape[2]
	if err := spec.checkSize(h, w); err != nil {
		return nil, err
	}
	states := max(batch, 1)
	data, err := readData(r, rd.Header.Descr.Type, states*h, w, c)
	if err != nil {
		return nil, err
	}
	rd, err = npyio.NewReader(io.MultiReader(bytes.NewReader(header), bytes.NewReader(data)))
	if err != nil {
		return nil, fmt.Errorf("not a NumPy .npy file: %w", err)
	}
	values, err := readValues(rd, states*h*w*c)
	if err != nil {
		return nil, err
	}
	if rd.Header.Descr.Fortran {
		values = fromFortran(values, h, w, c)
	}
	s = &State{Height: h, Width: w, Channels: c, Batch: batch, Values: values}
	if err := spec.checkValues(s); err != nil {
		return nil, err
	}
	return s, nil
}

// readHeader reads an .npy file's magic, version, header length and
// header, refusing a header longer than maxHeader before reading it, and
// one the file does not hold whole, which npyio does not always refuse.
func readHeader(r io.Reader) ([]byte, error) {
	head := make([]byte, 10, 12)
	if n, err := io.ReadFull(r, head); n < len(npy.Magic) || !bytes.Equal(head[:len(npy.Magic)], npy.Magic[:]) {
		return nil, fmt.Errorf("not a NumPy .npy file: it does not start as one (%d bytes)", n)
	} else if err != nil {
		return nil, fmt.Errorf("the file ends inside its .npy header (%d bytes): it is cut short", n)
	}
	n := uint32(binary.LittleEndian.Uint16(head[8:]))
	if head[6] >= 2 {
		head = head[:12]
		if _, err := io.ReadFull(r, head[10:]); err != nil {
			return nil, fmt.Errorf("the file ends inside its .npy header: it is cut short")
		}
		n = binary.LittleEndian.Uint32(head[8:])
	}
	switch {
	case n > maxHeader:
		return nil, fmt.Errorf("the .npy header claims %d bytes; a NumPy array's header is a few hundred", n)
	case n == 0:
		return nil, fmt.Errorf("the .npy header is empty: it must describe the array (dtype, order, shape)")
	}
	header := append(head, make([]byte, n)...)
	if _, err := io.ReadFull(r, header[len(head):]); err != nil {
		return nil, fmt.Errorf("the file ends inside its .npy header: it is cut short")
	}
	return header, nil
}

// readData reads the bytes of an [h, w, c] array of dtype that follow the
// header, no more, refusing a file that ends before them. For a dtype it
// does not know it reads nothing, for readValues to refuse.
func readData(r io.Reader, dtype string, h, w, c int) ([]byte, error) {
	dt := strings.TrimLeft(strings.Trim(dtype, `'"`), "<>|=")
	size, err := strconv.Atoi(dt[min(1, len(dt)):])
	if err != nil || len(dt) < 2 || !strings.ContainsRune("buif", rune(dt[0])) {
		return nil, nil
	}
	// NOTE: in float64, so that absurd shapes cannot overflow into small
	// numbers; a limit beyond any file is clamped, as the file will end first.
	values := float64(h) * float64(w) * float64(c)
	need := values * float64(size)
	data, err := io.ReadAll(io.LimitReader(r, int64(min(need, 1<<62))))
	if err != nil {
		return nil, err
	}
	if float64(len(data)) < need {
		return nil, fmt.Errorf("the file ends before the %.0f values its header promises (they need %.0f bytes, it holds %d after the header)", values, need, len(data))
	}
	return data, nil
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
