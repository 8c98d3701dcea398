package state

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// pngOf encodes a picture whose rows are given as colours.
func pngOf(t *testing.T, rows ...[]color.Color) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, len(rows[0]), len(rows)))
	for y, row := range rows {
		for x, c := range row {
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

var (
	black = color.NRGBA{0, 0, 0, 255}
	white = color.NRGBA{255, 255, 255, 255}
	red   = color.NRGBA{255, 0, 0, 255}
	grey  = func(v uint8) color.Color { return color.Gray{v} }
)

// TestReadPNGGrey: channel 0 is 1 from the threshold's grey level up, the
// other channels 0; a rectangular picture gives a rectangular grid.
func TestReadPNGGrey(t *testing.T) {
	pic := pngOf(t,
		[]color.Color{black, white, grey(127)},
		[]color.Color{grey(128), color.NRGBA{255, 255, 255, 0}, grey(200)})
	for _, tc := range []struct {
		threshold float64
		want      []float32 // channel 0 of the 2x3 cells
	}{
		{0.5, []float32{0, 1, 0, 1, 0, 1}},
		{0.8, []float32{0, 1, 0, 0, 0, 0}},
		{0, []float32{1, 1, 1, 1, 1, 1}},
	} {
		s, err := ReadPNG(bytes.NewReader(pic), Spec{Channels: 2, Threshold: tc.threshold})
		if err != nil {
			t.Fatal(err)
		}
		if s.Height != 2 || s.Width != 3 || s.Channels != 2 {
			t.Fatalf("threshold %v: %dx%dx%d, want 2x3x2", tc.threshold, s.Height, s.Width, s.Channels)
		}
		for i, want := range tc.want {
			if s.Values[2*i] != want || s.Values[2*i+1] != 0 {
				t.Errorf("threshold %v: cell %d is %v, want [%v 0]", tc.threshold, i, s.Values[2*i:2*i+2], want)
			}
		}
	}
}

// TestReadPNGPalette: each colour sets the channels its entry gives, and the
// rgb palette thresholds red, green and blue into channels 0-2.
func TestReadPNGPalette(t *testing.T) {
	pic := pngOf(t, []color.Color{black, white, red})
	p, err := ParsePalette("#000000=000, #ffffff=11,#FF0000=001")
	if err != nil {
		t.Fatal(err)
	}
	s, err := ReadPNG(bytes.NewReader(pic), Spec{Channels: 4, Palette: p, Threshold: DefaultThreshold})
	if err != nil {
		t.Fatal(err)
	}
	if want := []float32{0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0}; !slices.Equal(s.Values, want) {
		t.Fatalf("got %v, want %v", s.Values, want)
	}
	rgb, _ := ParsePalette("rgb")
	s, err = ReadPNG(bytes.NewReader(pngOf(t, []color.Color{red, color.NRGBA{10, 200, 130, 255}})), Spec{Channels: 3, Palette: rgb, Threshold: DefaultThreshold})
	if err != nil {
		t.Fatal(err)
	}
	if want := []float32{1, 0, 0, 0, 1, 1}; !slices.Equal(s.Values, want) {
		t.Fatalf("rgb: got %v, want %v", s.Values, want)
	}
}

func TestReadPNGRefuses(t *testing.T) {
	two, _ := ParsePalette("#000000=0,#ffffff=1")
	wide, _ := ParsePalette("#000000=0,#ffffff=0001")
	for _, tc := range []struct {
		name string
		file []byte
		spec Spec
		want string
	}{
		{"colour not in palette", pngOf(t, []color.Color{black, red}), Spec{Channels: 1, Palette: two}, "pixel (x 1, y 0): colour #ff0000 is not in the palette (#000000 #ffffff)"},
		{"palette wider than state", pngOf(t, []color.Color{black}), Spec{Channels: 2, Palette: wide}, "sets 4 channels but the state has 2"},
		{"threshold", pngOf(t, []color.Color{black}), Spec{Channels: 1, Threshold: 2}, "threshold 2"},
		{"too big", pngOf(t, slices.Repeat([]color.Color{black}, 9)), Spec{Channels: 1, MaxSide: 8}, "the grid is 1x9: at most 8"},
		{"not png", []byte("GIF89a"), Spec{Channels: 1}, "not a PNG picture"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadPNG(bytes.NewReader(tc.file), tc.spec)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one with %q", err, tc.want)
			}
		})
	}
}

func TestParsePalette(t *testing.T) {
	for _, s := range []string{"rgb", "#000000=0,#ffffff=1", "#102030=0110"} {
		p, err := ParsePalette(s)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if p.String() != s {
			t.Errorf("ParsePalette(%q).String() = %q", s, p.String())
		}
	}
	for _, s := range []string{"", "#000000", "000000=1", "#00000=1", "#000000=2", "#000000=", "#000000=1,#000000=0", "#gg0000=1"} {
		if _, err := ParsePalette(s); err == nil {
			t.Errorf("ParsePalette(%q): no error", s)
		}
	}
}

// TestLoad picks the reader by extension and names the file in errors.
func TestLoad(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	pic := write("a.PNG", pngOf(t, []color.Color{white, black}))
	arr := write("a.npy", handNPY("{'descr': '|u1', 'fortran_order': False, 'shape': (1, 2, 1), }", []byte{0, 1}))
	for path, want := range map[string][]float32{pic: {1, 0}, arr: {0, 1}} {
		s, err := Load(path, Spec{Channels: 1, Threshold: DefaultThreshold})
		if err != nil || !slices.Equal(s.Values, want) {
			t.Errorf("Load(%s) = %+v, %v; want values %v", path, s, err, want)
		}
	}
	if _, err := Load(arr, Spec{Channels: 3}); err == nil || !strings.HasPrefix(err.Error(), arr+": ") {
		t.Errorf("error %v does not start with the file's name", err)
	}
	if _, err := Load(write("a.txt", nil), Spec{Channels: 1}); err == nil || !strings.Contains(err.Error(), ".npy") {
		t.Errorf("a .txt file: error %v", err)
	}
}

// TestReadPNGReadsTheHeaderFirst: what is not a picture (an endless
// stream of zeros, as /dev/zero) is refused by its first bytes, and a
// header over MaxSide before the data after it is read; before, the whole
// input was read first.
func TestReadPNGReadsTheHeaderFirst(t *testing.T) {
	zeros := &endless{}
	if _, err := ReadPNG(zeros, Spec{Channels: 1, Threshold: DefaultThreshold}); err == nil || !strings.Contains(err.Error(), "not a PNG") {
		t.Fatalf("zeros: %v, want not a PNG", err)
	}
	if zeros.read > 64<<10 {
		t.Errorf("read %d bytes of zeros before refusing them", zeros.read)
	}
	// A picture 5000 wide: its header, then zeros for ever.
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 5000, 1))); err != nil {
		t.Fatal(err)
	}
	huge := &endless{header: b.Bytes()[:33]} // the signature and IHDR
	if _, err := ReadPNG(huge, Spec{Channels: 1, Threshold: DefaultThreshold, MaxSide: 4096}); err == nil || !strings.Contains(err.Error(), "5000") || huge.read > 64<<10 {
		t.Fatalf("a 5000-wide header: %v after reading %d bytes; want a refusal naming 5000 before the data", err, huge.read)
	}
}
