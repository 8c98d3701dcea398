package painter

import (
	"image"
	"image/color"
	"strings"
	"testing"
)

var (
	black = color.RGBA{0, 0, 0, 255}
	white = color.RGBA{255, 255, 255, 255}
)

// frameOf builds a one-channel frame from rows of values.
func frameOf(rows ...[]float32) Frame {
	f := NewFrame(len(rows), len(rows[0]), 1)
	for y, r := range rows {
		copy(f.Cells[y*f.W:], r)
	}
	return f
}

func TestPaintBlocks(t *testing.T) {
	// Cell (1, 2) is 1, all others 0; scale 3: pixels x in [6,9), y in [3,6) white.
	f := NewFrame(2, 4, 1)
	f.Cells[1*4+2] = 1
	img := Paint(f, Options{Scale: 3})
	if got, want := img.Bounds(), image.Rect(0, 0, 12, 6); got != want {
		t.Fatalf("bounds %v, want %v", got, want)
	}
	for y := 0; y < 6; y++ {
		for x := 0; x < 12; x++ {
			want := black
			if x >= 6 && x < 9 && y >= 3 {
				want = white
			}
			if got := img.RGBAAt(x, y); got != want {
				t.Errorf("pixel (%d,%d) = %v, want %v", x, y, got, want)
			}
		}
	}
}

func TestGreyLevels(t *testing.T) {
	cases := []struct {
		name string
		v    float32
		want uint8
	}{
		{"zero", 0, 0},
		{"one", 1, 255},
		{"half rounds up", 0.5, 128}, // 127.5
		{"quarter", 0.25, 64},        // 63.75
		{"below zero clamps", -3, 0},
		{"above one clamps", 7, 255},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			img := Paint(frameOf([]float32{c.v}), Options{})
			if got := img.RGBAAt(0, 0); got != (color.RGBA{c.want, c.want, c.want, 255}) {
				t.Errorf("value %v painted %v, want grey %d", c.v, got, c.want)
			}
		})
	}
}

func TestChannelAndRGB(t *testing.T) {
	// One cell with channels (1, 0, 0.5, 1): red 255, green 0, blue 128.
	f := Frame{H: 1, W: 1, C: 4, Cells: []float32{1, 0, 0.5, 1}}
	cases := []struct {
		name string
		o    Options
		want color.RGBA
	}{
		{"channel 0 default", Options{}, white},
		{"channel 1", Options{Channel: 1}, black},
		{"channel 2", Options{Channel: 2}, color.RGBA{128, 128, 128, 255}},
		{"rgb", Options{RGB: true}, color.RGBA{255, 0, 128, 255}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Paint(f, c.o).RGBAAt(0, 0); got != c.want {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

func TestRGBWithFewerChannels(t *testing.T) {
	f := Frame{H: 1, W: 1, C: 1, Cells: []float32{1}}
	if got, want := Paint(f, Options{RGB: true}).RGBAAt(0, 0), (color.RGBA{255, 0, 0, 255}); got != want {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestGridLines(t *testing.T) {
	// 2x2 white cells at scale 4: pixel (x,y) is a line when x%4 == 3 or y%4 == 3.
	f := frameOf([]float32{1, 1}, []float32{1, 1})
	img := Paint(f, Options{Scale: 4, GridLines: true})
	for y := 0; y < 8; y++ {
		for x := 0; x < 8; x++ {
			want := white
			if x%4 == 3 || y%4 == 3 {
				want = GridColour
			}
			if got := img.RGBAAt(x, y); got != want {
				t.Errorf("pixel (%d,%d) = %v, want %v", x, y, got, want)
			}
		}
	}
}

func TestPaintAtOffsetClips(t *testing.T) {
	dst := image.NewRGBA(image.Rect(0, 0, 5, 5))
	PaintAt(dst, image.Pt(3, 3), frameOf([]float32{1, 1}), Options{Scale: 2})
	for y := 0; y < 5; y++ {
		for x := 0; x < 5; x++ {
			want := color.RGBA{}
			if x >= 3 && y >= 3 {
				want = white
			}
			if got := dst.RGBAAt(x, y); got != want {
				t.Errorf("pixel (%d,%d) = %v, want %v", x, y, got, want)
			}
		}
	}
}

func TestPanics(t *testing.T) {
	cases := []struct {
		name string
		f    Frame
		o    Options
		msg  string
	}{
		{"missing channel", NewFrame(1, 1, 2), Options{Channel: 2}, "channel 2"},
		{"negative channel", NewFrame(1, 1, 2), Options{Channel: -1}, "channel -1"},
		{"short frame", Frame{H: 2, W: 2, C: 1, Cells: make([]float32, 3)}, Options{}, "holds 3 values"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				r := recover()
				s, _ := r.(string)
				if !strings.HasPrefix(s, "painter: ") || !strings.Contains(s, c.msg) {
					t.Errorf("panic %v, want a painter: message containing %q", r, c.msg)
				}
			}()
			Paint(c.f, c.o)
		})
	}
}
