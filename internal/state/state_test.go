package state

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// npyFile writes a NumPy .npy file (format version 1.0, as numpy.save
// writes it) of dtype descr, shape and raw little-endian data.
func npyFile(t *testing.T, descr, shape string, fortran bool, data any) string {
	t.Helper()
	order := "False"
	if fortran {
		order = "True"
	}
	header := fmt.Sprintf("{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", descr, order, shape)
	// Magic, version, header length, then the header padded with spaces
	// and a newline so that the data starts at a multiple of 64.
	pad := 64 - (10+len(header)+1)%64
	header += strings.Repeat(" ", pad%64) + "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(header)))
	b.WriteString(header)
	if err := binary.Write(&b, binary.LittleEndian, data); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "s.npy")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLoadNPY: an array [H, W, C] of 0/1 of any numeric dtype reads as a
// grid whose channels beyond C are 0.
func TestLoadNPY(t *testing.T) {
	// [2, 3, 2]: cell (y, x) channel k is 1 where y+x+k is odd (written
	// out, so that the test does not repeat the reader's indexing).
	u8 := []uint8{0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0}
	f64 := make([]float64, len(u8))
	for i, v := range u8 {
		f64[i] = float64(v)
	}
	for _, tc := range []struct {
		descr string
		data  any
	}{{"|u1", u8}, {"<f8", f64}, {"|b1", u8}} {
		g, err := Load(npyFile(t, tc.descr, "(2, 3, 2)", false, tc.data), Mapping{}, 3)
		if err != nil {
			t.Fatalf("%s: %v", tc.descr, err)
		}
		if g.Height != 2 || g.Width != 3 || g.Channels != 3 {
			t.Fatalf("%s: grid %dx%dx%d, want 2x3x3", tc.descr, g.Height, g.Width, g.Channels)
		}
		want := []float32{0, 1, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0}
		for i, v := range g.Values {
			if v != want[i] {
				t.Fatalf("%s: values %v, want %v", tc.descr, g.Values, want)
			}
		}
	}
}

// TestLoadBad: files that are no state say why.
func TestLoadBad(t *testing.T) {
	for _, tc := range []struct {
		name, path, want string
		channels         int
	}{
		{"not 0/1", npyFile(t, "|u1", "(1, 1, 2)", false, []uint8{0, 2}), "element [0 0 1]: is 2", 2},
		{"2-D", npyFile(t, "|u1", "(2, 2)", false, []uint8{0, 1, 1, 0}), "want [height, width, channels]", 2},
		{"Fortran", npyFile(t, "|u1", "(1, 1, 2)", true, []uint8{0, 1}), "Fortran order", 2},
		{"too many channels", npyFile(t, "|u1", "(1, 1, 2)", false, []uint8{0, 1}), "has 2 channels, more than the 1", 1},
		{"text", filepath.Join(t.TempDir(), "s.txt"), "not a state file", 1},
	} {
		_, err := Load(tc.path, Mapping{}, tc.channels)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("%s: error %v, want one saying %q", tc.name, err, tc.want)
		}
	}
}

// TestCheckMapping: a mapping that cannot give bits is refused before any
// file is read.
func TestCheckMapping(t *testing.T) {
	for _, tc := range []struct {
		m    Mapping
		want string
	}{
		{Mapping{Threshold: 1}, "threshold 1"},
		{Mapping{Channel: 3}, "channel 3"},
		{Mapping{Palette: map[string][]int{"red": {1}}}, `colour "red"`},
		{Mapping{Palette: map[string][]int{"#ff0000": {1, 0, 1}}}, "has 3 bits"},
		{Mapping{Palette: map[string][]int{"#ff0000": {2}}}, "bit 2"},
		{Mapping{Palette: map[string][]int{"#ff0000": {1}}, Threshold: 0.5}, "leave threshold"},
	} {
		if err := CheckMapping(tc.m, 2); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("%+v: error %v, want one saying %q", tc.m, err, tc.want)
		}
	}
	if err := CheckMapping(Mapping{Threshold: 0.5, Channel: 1}, 2); err != nil {
		t.Fatal(err)
	}
}
