package painter

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/gif"
	"math/rand/v2"
	"testing"
)

// randomFrames returns n frames of h x w cells of c channels, each value 0
// or 1 when binary, any level otherwise.
func randomFrames(n, h, w, c int, binary bool, seed uint64) []Frame {
	rng := rand.New(rand.NewPCG(seed, 2))
	var frames []Frame
	for range n {
		f := NewFrame(h, w, c)
		for i := range f.Cells {
			if binary {
				f.Cells[i] = float32(rng.IntN(2))
			} else {
				f.Cells[i] = rng.Float32()
			}
		}
		frames = append(frames, f)
	}
	return frames
}

// TestGIFEncoderMatchesImageGIF encodes the same frames with GIFEncoder and
// with image/gif's EncodeAll (what WriteGIF did before): gif.DecodeAll must
// read back the same number of frames, the same delays, the same looping
// and the same colour at every pixel. The sizes cover palettes that are
// not powers of two, a one-colour palette and LZW output longer than one
// 255-byte sub-block.
func TestGIFEncoderMatchesImageGIF(t *testing.T) {
	for _, tc := range []struct {
		name   string
		frames []Frame
		o      Options
		binary bool
	}{
		{"hard grey", randomFrames(4, 40, 30, 1, true, 1), Options{Scale: 3}, true},
		{"hard rgb with grid lines", randomFrames(3, 17, 23, 3, true, 2), Options{RGB: true, Scale: 4, GridLines: true}, true},
		{"soft grey", randomFrames(3, 64, 64, 2, false, 3), Options{Channel: 1}, false},
		{"one colour", []Frame{NewFrame(5, 7, 1), NewFrame(5, 7, 1)}, Options{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pal := KnownPalette(tc.o, tc.binary)
			var stream bytes.Buffer
			enc := NewGIFEncoder(&stream, pal, 7)
			want := &gif.GIF{}
			for _, f := range tc.frames {
				img := Paint(f, tc.o)
				if err := enc.Add(img); err != nil {
					t.Fatal(err)
				}
				p := image.NewPaletted(img.Bounds(), pal)
				draw.Draw(p, p.Rect, img, image.Point{}, draw.Src)
				want.Image = append(want.Image, p)
				want.Delay = append(want.Delay, 7)
			}
			if err := enc.Close(); err != nil {
				t.Fatal(err)
			}
			var old bytes.Buffer
			if err := gif.EncodeAll(&old, want); err != nil {
				t.Fatal(err)
			}
			got, err := gif.DecodeAll(&stream)
			if err != nil {
				t.Fatalf("the streamed GIF does not decode: %v", err)
			}
			ref, err := gif.DecodeAll(&old)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Image) != len(ref.Image) || fmt.Sprint(got.Delay) != fmt.Sprint(ref.Delay) || got.LoopCount != ref.LoopCount {
				t.Fatalf("%d frames, delays %v, loop %d; image/gif: %d, %v, %d", len(got.Image), got.Delay, got.LoopCount, len(ref.Image), ref.Delay, ref.LoopCount)
			}
			for i := range got.Image {
				assertSame(t, got.Image[i], ref.Image[i])
			}
		})
	}
}

// TestKnownPaletteCoversPaint paints random frames and checks that every
// pixel's colour is in the palette, so that the GIF draws it exactly.
func TestKnownPaletteCoversPaint(t *testing.T) {
	for _, tc := range []struct {
		o      Options
		binary bool
		size   int
	}{
		{Options{}, true, 2}, {Options{RGB: true}, true, 8}, {Options{Scale: 4, GridLines: true}, true, 3},
		{Options{}, false, 256}, {Options{Channel: 2, Scale: 3, GridLines: true}, false, 257},
	} {
		pal := KnownPalette(tc.o, tc.binary)
		if len(pal) != tc.size {
			t.Errorf("%+v binary %v: %d colours, want %d", tc.o, tc.binary, len(pal), tc.size)
		}
		in := map[color.RGBA]bool{}
		for _, c := range pal {
			in[color.RGBAModel.Convert(c).(color.RGBA)] = true
		}
		for _, f := range randomFrames(2, 16, 16, 3, tc.binary, 4) {
			var c Colours
			c.Add(Paint(f, tc.o))
			for _, col := range c.Palette() {
				if !in[col.(color.RGBA)] {
					t.Errorf("%+v binary %v: Paint drew %v, not in the palette", tc.o, tc.binary, col)
				}
			}
		}
	}
	if KnownPalette(Options{RGB: true}, false) != nil {
		t.Error("soft RGB has a known palette")
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestGIFEncoderErrors: a failing writer, an empty animation and a frame too
// large for GIF are errors; a frame of another size is a programmer error.
func TestGIFEncoderErrors(t *testing.T) {
	pal := KnownPalette(Options{}, true)
	enc := NewGIFEncoder(failingWriter{}, pal, 1)
	for range 3 {
		enc.Add(Paint(randomFrames(1, 100, 100, 1, true, 5)[0], Options{}))
	}
	if err := enc.Close(); err == nil || err.Error() != "disk full" {
		t.Errorf("failing writer: %v, want disk full", err)
	}
	if err := NewGIFEncoder(&bytes.Buffer{}, pal, 1).Close(); err == nil {
		t.Error("no error for an empty animation")
	}
	if err := NewGIFEncoder(&bytes.Buffer{}, pal, 1).Add(image.NewRGBA(image.Rect(0, 0, 70000, 1))); err == nil {
		t.Error("no error for a frame 70000 pixels wide")
	}
	defer func() {
		if recover() == nil {
			t.Error("no panic for frames of two sizes")
		}
	}()
	enc = NewGIFEncoder(&bytes.Buffer{}, pal, 1)
	enc.Add(image.NewRGBA(image.Rect(0, 0, 2, 2)))
	enc.Add(image.NewRGBA(image.Rect(0, 0, 3, 2)))
}
