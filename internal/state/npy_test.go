package state

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"
	"strings"
	"testing"

	"codeberg.org/sbinet/npyio"
)

// handNPY builds an .npy file by hand as NumPy's format specification lays
// it out: magic, version 1.0, the little-endian header length, the header
// dictionary padded with spaces to a multiple of 16 bytes and a newline,
// then data.
func handNPY(dict string, data []byte) []byte {
	b := []byte("\x93NUMPY\x01\x00")
	pad := 16 - (10+len(dict)+1)%16
	hdr := dict + strings.Repeat(" ", pad%16) + "\n"
	b = binary.LittleEndian.AppendUint16(b, uint16(len(hdr)))
	return append(append(b, hdr...), data...)
}

func le32(fs ...float32) []byte {
	var b []byte
	for _, f := range fs {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
	}
	return b
}

// TestReadHandBuiltNPY reads arrays whose bytes the test wrote by hand, in
// the dtypes NumPy users save.
func TestReadHandBuiltNPY(t *testing.T) {
	// A 2x3 grid of 2 channels; cell (y, x) channel c in C order.
	want := []float32{0, 1, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1}
	u8 := []byte{0, 1, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1}
	var i8le, f8be []byte
	for _, v := range want {
		i8le = binary.LittleEndian.AppendUint64(i8le, uint64(v))
		f8be = binary.BigEndian.AppendUint64(f8be, math.Float64bits(float64(v)))
	}
	// Fortran order: the first index varies fastest.
	var fortran []byte
	for c := range 2 {
		for x := range 3 {
			for y := range 2 {
				fortran = append(fortran, u8[(y*3+x)*2+c])
			}
		}
	}
	for _, tc := range []struct {
		name, dict string
		data       []byte
	}{
		{"uint8", "{'descr': '|u1', 'fortran_order': False, 'shape': (2, 3, 2), }", u8},
		{"bool", "{'descr': '|b1', 'fortran_order': False, 'shape': (2, 3, 2), }", u8},
		{"int64", "{'descr': '<i8', 'fortran_order': False, 'shape': (2, 3, 2), }", i8le},
		{"float32", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3, 2), }", le32(want...)},
		{"big-endian float64", "{'descr': '>f8', 'fortran_order': False, 'shape': (2, 3, 2), }", f8be},
		{"fortran order", "{'descr': '|u1', 'fortran_order': True, 'shape': (2, 3, 2), }", fortran},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ReadNPY(bytes.NewReader(handNPY(tc.dict, tc.data)), Spec{Channels: 2})
			if err != nil {
				t.Fatal(err)
			}
			if s.Height != 2 || s.Width != 3 || s.Channels != 2 || !slices.Equal(s.Values, want) {
				t.Fatalf("got %dx%dx%d %v, want 2x3x2 %v", s.Height, s.Width, s.Channels, s.Values, want)
			}
		})
	}
	t.Run("2-D for one channel", func(t *testing.T) {
		s, err := ReadNPY(bytes.NewReader(handNPY("{'descr': '|u1', 'fortran_order': False, 'shape': (2, 2), }", []byte{1, 0, 0, 1})), Spec{Channels: 1})
		if err != nil || s.Height != 2 || s.Width != 2 || s.Channels != 1 || !slices.Equal(s.Values, []float32{1, 0, 0, 1}) {
			t.Fatalf("got %+v, %v", s, err)
		}
	})
}

// TestReadNPYRefuses: a file of the wrong shape, values, dtype or length is
// an error that says what was found and what was wanted.
func TestReadNPYRefuses(t *testing.T) {
	u8 := func(shape string, data ...byte) []byte {
		return handNPY("{'descr': '|u1', 'fortran_order': False, 'shape': "+shape+", }", data)
	}
	hugeHeader := []byte("\x93NUMPY\x02\x00\xff\xff\xff\x7f{'descr'")
	for _, tc := range []struct {
		name string
		file []byte
		spec Spec
		want string // in the error
	}{
		{"channels", u8("(1, 2, 3)", 0, 0, 0, 0, 0, 0), Spec{Channels: 2}, "shape (1, 2, 3); want (H, W, 2)"},
		{"batch", u8("(1, 1, 2, 2)", 0, 0, 0, 0), Spec{Channels: 2}, "shape (1, 1, 2, 2); want (H, W, 2)"},
		{"2-D for two channels", u8("(2, 2)", 0, 0, 0, 0), Spec{Channels: 2}, "shape (2, 2); want (H, W, 2)"},
		{"empty", u8("(0, 2, 1)"), Spec{Channels: 1}, "at least one cell"},
		{"too big", u8("(5000, 2, 1)"), Spec{Channels: 1, MaxSide: 4096}, "at most 4096"},
		{"hard 2", u8("(1, 2, 1)", 1, 2), Spec{Channels: 1}, "value at [0, 1, 0] is 2: every value must be 0 or 1"},
		{"hard 0.5", handNPY("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 2), }", le32(0, 0.5)), Spec{Channels: 2}, "[0, 0, 1] is 0.5"},
		{"soft 1.5", handNPY("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 1), }", le32(1.5)), Spec{Channels: 1, Soft: true}, "must be in [0, 1]"},
		{"soft NaN", handNPY("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 1), }", le32(float32(math.NaN()))), Spec{Channels: 1, Soft: true}, "is NaN"},
		{"negative int", handNPY("{'descr': '|i1', 'fortran_order': False, 'shape': (1, 1, 1), }", []byte{0xff}), Spec{Channels: 1}, "is -1"},
		{"complex", handNPY("{'descr': '<c8', 'fortran_order': False, 'shape': (1, 1, 1), }", make([]byte, 8)), Spec{Channels: 1}, "dtype is <c8"},
		{"truncated", u8("(2, 2, 1)", 0, 1, 0), Spec{Channels: 1}, "ends before the 4 values"},
		// A header promising 80 GB in a file of 128 bytes: refused before
		// allocating (it used to end the process, out of memory).
		{"huge shape", handNPY("{'descr': '<i8', 'fortran_order': False, 'shape': (100000, 100000, 1), }", nil), Spec{Channels: 1},
			"ends before the 10000000000 values its header promises (they need 80000000000 bytes, it holds 0"},
		{"shape overflowing int", u8("(4611686018427387904, 4, 1)"), Spec{Channels: 1}, "ends before the"},
		{"not npy", []byte("P6 not numpy at all"), Spec{Channels: 1}, "not a NumPy .npy file"},
		{"huge header", hugeHeader, Spec{Channels: 1}, "header claims"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadNPY(bytes.NewReader(tc.file), tc.spec)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one with %q", err, tc.want)
			}
		})
	}
	// A soft spec takes values in [0, 1].
	s, err := ReadNPY(bytes.NewReader(handNPY("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 2), }", le32(0.25, 1))), Spec{Channels: 2, Soft: true})
	if err != nil || !slices.Equal(s.Values, []float32{0.25, 1}) {
		t.Fatalf("soft values: %+v, %v", s, err)
	}
}

// TestNPYHeaderBytes checks the writer's header against bytes worked out
// by hand: 10 bytes of magic, version and length, the 62-byte dictionary,
// 55 spaces and a newline make 128, a multiple of 64.
func TestNPYHeaderBytes(t *testing.T) {
	var b bytes.Buffer
	nw, err := NewNPYWriter(&b, Uint8, 2, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := nw.WriteUint8([]uint8{1, 0, 1, 0, 0, 1}); err != nil {
		t.Fatal(err)
	}
	if err := nw.Close(); err != nil {
		t.Fatal(err)
	}
	want := "\x93NUMPY\x01\x00\x76\x00" + "{'descr': '|u1', 'fortran_order': False, 'shape': (2, 3, 1), }" + strings.Repeat(" ", 55) + "\n" + "\x01\x00\x01\x00\x00\x01"
	if b.String() != want {
		t.Fatalf("wrote\n%q\nwant\n%q", b.String(), want)
	}
}

// TestNPYWriterRoundTrip: what NPYWriter streams in pieces, npyio reads
// back with the same shape and values, and so does ReadNPY.
func TestNPYWriterRoundTrip(t *testing.T) {
	t.Run("float32 [T+1, H, W, C]", func(t *testing.T) {
		shape := []int{3, 4, 5, 2}
		values := make([]float32, 3*4*5*2)
		for i := range values {
			values[i] = float32(i%7) / 6
		}
		var b bytes.Buffer
		nw, err := NewNPYWriter(&b, Float32, shape...)
		if err != nil {
			t.Fatal(err)
		}
		for frame := range 3 { // a state at a time
			if err := nw.WriteFloat32(values[frame*40 : (frame+1)*40]); err != nil {
				t.Fatal(err)
			}
		}
		if err := nw.Close(); err != nil {
			t.Fatal(err)
		}
		if (b.Len()-len(values)*4)%64 != 0 {
			t.Errorf("the data does not start at a multiple of 64 bytes (file of %d bytes)", b.Len())
		}
		r, err := npyio.NewReader(bytes.NewReader(b.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		var got []float32
		if err := r.Read(&got); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(r.Header.Descr.Shape, shape) || r.Header.Descr.Fortran || !slices.Equal(got, values) {
			t.Fatalf("npyio read shape %v (fortran %v) %v, want %v %v", r.Header.Descr.Shape, r.Header.Descr.Fortran, got, shape, values)
		}
	})
	t.Run("int32 [2, N]", func(t *testing.T) {
		values := []int32{0, 7, -3, 1 << 30, 5, 2}
		var b bytes.Buffer
		nw, err := NewNPYWriter(&b, Int32, 2, 3)
		if err != nil {
			t.Fatal(err)
		}
		if err := nw.WriteInt32(values); err != nil {
			t.Fatal(err)
		}
		if err := nw.Close(); err != nil {
			t.Fatal(err)
		}
		r, err := npyio.NewReader(bytes.NewReader(b.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		var got []int32
		if err := r.Read(&got); err != nil {
			t.Fatal(err)
		}
		if strings.Trim(r.Header.Descr.Type, `'"`) != "<i4" || !slices.Equal(r.Header.Descr.Shape, []int{2, 3}) || !slices.Equal(got, values) {
			t.Fatalf("npyio read %s %v %v, want <i4 [2 3] %v", r.Header.Descr.Type, r.Header.Descr.Shape, got, values)
		}
	})
	t.Run("uint8 state", func(t *testing.T) {
		s := &State{Height: 2, Width: 3, Channels: 2, Values: []float32{1, 0, 0, 1, 1, 1, 0, 0, 1, 0, 0, 1}}
		var b bytes.Buffer
		if err := WriteNPY(&b, s, Uint8); err != nil {
			t.Fatal(err)
		}
		var got []uint8
		if err := npyio.Read(bytes.NewReader(b.Bytes()), &got); err != nil {
			t.Fatal(err)
		}
		if want := []uint8{1, 0, 0, 1, 1, 1, 0, 0, 1, 0, 0, 1}; !slices.Equal(got, want) {
			t.Fatalf("npyio read %v, want %v", got, want)
		}
		back, err := ReadNPY(bytes.NewReader(b.Bytes()), Spec{Channels: 2})
		if err != nil {
			t.Fatal(err)
		}
		if back.Height != 2 || back.Width != 3 || !slices.Equal(back.Values, s.Values) {
			t.Fatalf("read back %+v, want %+v", back, s)
		}
	})
}

// TestNPYWriterCounts: writing more or fewer values than the shape holds,
// or the wrong type, is an error.
func TestNPYWriterCounts(t *testing.T) {
	var b bytes.Buffer
	nw, _ := NewNPYWriter(&b, Uint8, 2, 2)
	if err := nw.WriteUint8(make([]uint8, 3)); err != nil {
		t.Fatal(err)
	}
	if err := nw.Close(); err == nil {
		t.Error("Close after 3 of 4 values: no error")
	}
	if err := nw.WriteUint8(make([]uint8, 2)); err == nil {
		t.Error("5 values into a 2x2 array: no error")
	}
	if err := nw.WriteFloat32(make([]float32, 1)); err == nil {
		t.Error("float32 values into a uint8 array: no error")
	}
}

// endless is a reader of header followed by zeros for ever, counting what
// was read.
type endless struct {
	header []byte
	read   int
}

func (e *endless) Read(p []byte) (int, error) {
	n := 0
	if e.read < len(e.header) {
		n = copy(p, e.header[e.read:])
	} else {
		n = len(p)
		clear(p)
	}
	e.read += n
	return n, nil
}

// TestReadNPYReadsNoMoreThanItNeeds: a grid over spec.MaxSide is refused
// with its header read and nothing more, and a file holding more than its
// values is read as far as they go: ReadNPY never takes a whole file in
// before it knows what it needs.
func TestReadNPYReadsNoMoreThanItNeeds(t *testing.T) {
	header := handNPY("{'descr': '|u1', 'fortran_order': False, 'shape': (5000, 2, 1), }", nil)
	r := &endless{header: header}
	if _, err := ReadNPY(r, Spec{Channels: 1, MaxSide: 4096}); err == nil || !strings.Contains(err.Error(), "at most 4096") || r.read != len(header) {
		t.Errorf("a grid over MaxSide: error %v after reading %d bytes; want the refusal after the %d of the header", err, r.read, len(header))
	}
	r = &endless{header: header}
	s, err := ReadNPY(r, Spec{Channels: 1})
	if err != nil || s.Height != 5000 || r.read != len(header)+10000 {
		t.Errorf("5000x2 bytes of an endless file: %v after reading %d bytes; want the state after %d", err, r.read, len(header)+10000)
	}
}

// TestReadNPYBatch: with Spec.Batch a 4-dimensional array [B, H, W, C] is B
// states, in C order (state, row, column, channel); [1, H, W, C] is a
// batch of one; without Spec.Batch, or with no states, it is refused.
func TestReadNPYBatch(t *testing.T) {
	write := func(shape ...int) []byte {
		n := 1
		for _, d := range shape {
			n *= d
		}
		v := make([]uint8, n)
		for i := range v {
			v[i] = uint8(i*7%3) & 1
		}
		var b bytes.Buffer
		nw, err := NewNPYWriter(&b, Uint8, shape...)
		if err != nil {
			t.Fatal(err)
		}
		if err := nw.WriteUint8(v); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	for _, b := range []int{1, 3} {
		s, err := ReadNPY(bytes.NewReader(write(b, 4, 5, 2)), Spec{Channels: 2, Batch: true})
		if err != nil {
			t.Fatalf("[%d, 4, 5, 2]: %v", b, err)
		}
		if s.Batch != b || s.Height != 4 || s.Width != 5 || s.Channels != 2 || len(s.Values) != b*40 {
			t.Fatalf("[%d, 4, 5, 2]: read batch %d of %dx%dx%d, %d values", b, s.Batch, s.Height, s.Width, s.Channels, len(s.Values))
		}
		// Value i of the file is (i*7 mod 3) & 1, whatever its place.
		for i, v := range s.Values {
			if want := float32(i * 7 % 3 & 1); v != want {
				t.Fatalf("[%d, 4, 5, 2]: value %d is %v, want %v", b, i, v, want)
			}
		}
	}
	if s, err := ReadNPY(bytes.NewReader(write(4, 5, 2)), Spec{Channels: 2, Batch: true}); err != nil || s.Batch != 0 {
		t.Fatalf("[4, 5, 2] with Batch: %+v, %v; want one state, Batch 0", s, err)
	}
	for _, tc := range []struct {
		shape []int
		spec  Spec
		want  string
	}{
		{[]int{2, 4, 5, 2}, Spec{Channels: 2}, "want (H, W, 2)"},
		{[]int{0, 4, 5, 2}, Spec{Channels: 2, Batch: true}, "a batch holds 1 to"},
		{[]int{2, 4, 5, 3}, Spec{Channels: 2, Batch: true}, "or a batch (B, H, W, 2)"},
	} {
		if _, err := ReadNPY(bytes.NewReader(write(tc.shape...)), tc.spec); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("shape %v, batch %v: error %v, want one saying %q", tc.shape, tc.spec.Batch, err, tc.want)
		}
	}
}
