package painter

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/color/palette"
	"image/gif"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

func TestSavePNGRoundTrip(t *testing.T) {
	f := Frame{H: 2, W: 3, C: 3, Cells: []float32{
		1, 0, 0, 0, 1, 0, 0, 0, 1,
		1, 1, 0, 0.5, 0.5, 0.5, 0, 0, 0,
	}}
	img := Paint(f, Options{RGB: true, Scale: 2})
	path := filepath.Join(t.TempDir(), "g.png")
	if err := SavePNG(path, img); err != nil {
		t.Fatal(err)
	}
	r, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	back, err := png.Decode(r)
	if err != nil {
		t.Fatal(err)
	}
	// Cell (1,1) is grey 128 at pixels x,y in [2,4).
	if got := color.RGBAModel.Convert(back.At(3, 3)); got != (color.RGBA{128, 128, 128, 255}) {
		t.Errorf("decoded pixel (3,3) = %v, want grey 128", got)
	}
	assertSame(t, back, img)
}

func TestSaveGIFExactPalette(t *testing.T) {
	var frames []image.Image
	for i := 0; i < 3; i++ {
		f := NewFrame(3, 3, 1)
		f.Cells[i*3+i] = 1 // a diagonal cell moving down
		frames = append(frames, Paint(f, Options{Scale: 2}))
	}
	path := filepath.Join(t.TempDir(), "r.gif")
	if err := SaveGIF(path, frames, 7); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	g, err := gif.DecodeAll(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Image) != 3 {
		t.Fatalf("%d frames, want 3", len(g.Image))
	}
	for i, p := range g.Image {
		if g.Delay[i] != 7 {
			t.Errorf("frame %d delay %d, want 7", i, g.Delay[i])
		}
		t.Run(fmt.Sprint("frame", i), func(t *testing.T) { assertSame(t, p, frames[i]) })
	}
}

func TestSaveGIFManyColoursQuantises(t *testing.T) {
	// 300 cells with distinct colours: more than a GIF palette holds.
	f := NewFrame(1, 300, 3)
	for x := 0; x < 300; x++ {
		f.Cells[3*x] = float32(x%20) / 19
		f.Cells[3*x+1] = float32(x/20) / 14
	}
	img := Paint(f, Options{RGB: true})
	var buf bytes.Buffer
	if err := WriteGIF(&buf, []image.Image{img}, 1); err != nil {
		t.Fatal(err)
	}
	g, err := gif.DecodeAll(&buf)
	if err != nil {
		t.Fatal(err)
	}
	p := g.Image[0]
	for x := 0; x < 300; x++ {
		want := color.Palette(palette.Plan9).Convert(img.At(x, 0))
		if got := p.At(x, 0); color.RGBAModel.Convert(got) != color.RGBAModel.Convert(want) {
			t.Fatalf("pixel %d = %v, want the nearest Plan 9 colour %v", x, got, want)
		}
	}
}

func TestWriteGIFNoFrames(t *testing.T) {
	if err := WriteGIF(&bytes.Buffer{}, nil, 1); err == nil {
		t.Error("no error for an empty animation")
	}
}

func TestSavePNGBadDirectory(t *testing.T) {
	err := SavePNG(filepath.Join(t.TempDir(), "missing", "x.png"), image.NewRGBA(image.Rect(0, 0, 1, 1)))
	if err == nil {
		t.Error("no error writing into a missing directory")
	}
}

// assertSame fails when got and want differ in any pixel.
func assertSame(t *testing.T, got, want image.Image) {
	t.Helper()
	if got.Bounds() != want.Bounds() {
		t.Fatalf("bounds %v, want %v", got.Bounds(), want.Bounds())
	}
	b := want.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			g := color.RGBAModel.Convert(got.At(x, y))
			w := color.RGBAModel.Convert(want.At(x, y))
			if g != w {
				t.Fatalf("pixel (%d,%d) = %v, want %v", x, y, g, w)
			}
		}
	}
}

// TestFailedSaveKeepsOldImage: an animation that cannot be encoded leaves
// the file it was to replace as it was, and no temporary file.
func TestFailedSaveKeepsOldImage(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rollout.gif")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := SaveGIF(path, nil, 1); err == nil {
		t.Fatal("no error for an empty animation")
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("the old file became %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d entries in the directory, want the old file alone", len(entries))
	}
}
