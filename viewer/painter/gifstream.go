package painter

import (
	"bufio"
	"compress/lzw"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"io"
	"math/bits"
)

// GIFEncoder writes an animated GIF one frame at a time, so that a long
// rollout on a large grid never holds more than one frame: Go's image/gif
// encodes only whole animations. Every frame is drawn with one palette,
// given up front (the global colour table), mapping each pixel to its
// nearest colour; the GIF loops forever. Add the frames, then Close.
type GIFEncoder struct {
	w      *bufio.Writer
	pal    color.Palette
	delay  int
	bounds image.Rectangle // of the first frame; every frame must match
	frames int
	err    error
}

// NewGIFEncoder returns an encoder writing to w with palette pal (1 to 256
// colours), showing each frame for delay hundredths of a second. It panics
// on a palette out of range (a programmer error).
func NewGIFEncoder(w io.Writer, pal color.Palette, delay int) *GIFEncoder {
	if len(pal) < 1 || len(pal) > 256 {
		panic(fmt.Sprintf("painter: NewGIFEncoder: palette of %d colours, want 1 to 256", len(pal)))
	}
	return &GIFEncoder{w: bufio.NewWriter(w), pal: pal, delay: delay}
}

// tableBits is the GIF colour table's size field: the table holds
// 2^(tableBits+1) colours, at least as many as the palette.
func (e *GIFEncoder) tableBits() int {
	return max(1, bits.Len(uint(len(e.pal)-1))) - 1
}

// Add draws img with the palette and appends it. Every frame must have the
// first one's bounds; the first error is kept and returned by later calls.
func (e *GIFEncoder) Add(img image.Image) error {
	if e.err != nil {
		return e.err
	}
	b := img.Bounds()
	switch {
	case e.frames == 0 && (b.Dx() < 1 || b.Dy() < 1 || b.Dx() > 0xffff || b.Dy() > 0xffff):
		e.err = fmt.Errorf("painter: a GIF frame of %dx%d pixels: want 1 to 65535 each way", b.Dx(), b.Dy())
		return e.err
	case e.frames == 0:
		e.bounds = b
		e.writeHeader()
	case b.Size() != e.bounds.Size():
		panic(fmt.Sprintf("painter: GIFEncoder.Add: frame of %v after frames of %v", b.Size(), e.bounds.Size()))
	}
	p := image.NewPaletted(image.Rect(0, 0, b.Dx(), b.Dy()), e.pal)
	draw.Draw(p, p.Rect, img, b.Min, draw.Src)
	e.writeFrame(p)
	e.frames++
	return e.err
}

// Close writes the trailer and flushes. An animation needs a frame.
func (e *GIFEncoder) Close() error {
	if e.err == nil && e.frames == 0 {
		e.err = fmt.Errorf("painter: no frames to write")
	}
	if e.err != nil {
		return e.err
	}
	e.w.WriteByte(0x3b) // trailer
	e.err = e.w.Flush()
	return e.err
}

// writeHeader writes the header, the logical screen with the palette as
// its global colour table, and the NETSCAPE2.0 extension that loops the
// animation forever.
func (e *GIFEncoder) writeHeader() {
	n := e.tableBits()
	w := e.w
	w.WriteString("GIF89a")
	binary.Write(w, binary.LittleEndian, [2]uint16{uint16(e.bounds.Dx()), uint16(e.bounds.Dy())})
	w.Write([]byte{0x80 | byte(n)<<4 | byte(n), 0, 0}) // global table, colour resolution, size; background 0; aspect 0
	for i := range 1 << (n + 1) {
		var rgb [3]byte
		if i < len(e.pal) {
			r, g, b, _ := e.pal[i].RGBA()
			rgb = [3]byte{byte(r >> 8), byte(g >> 8), byte(b >> 8)}
		}
		w.Write(rgb[:])
	}
	w.Write([]byte{0x21, 0xff, 11})
	w.WriteString("NETSCAPE2.0")
	w.Write([]byte{3, 1, 0, 0, 0}) // loop count 0: forever
}

// writeFrame writes p's graphic control extension (its delay), image
// descriptor and LZW-compressed pixels in sub-blocks.
func (e *GIFEncoder) writeFrame(p *image.Paletted) {
	w := e.w
	w.Write([]byte{0x21, 0xf9, 4, 0})
	binary.Write(w, binary.LittleEndian, uint16(e.delay))
	w.Write([]byte{0, 0, 0x2c}) // no transparent colour; end of extension; image descriptor
	binary.Write(w, binary.LittleEndian, [4]uint16{0, 0, uint16(p.Rect.Dx()), uint16(p.Rect.Dy())})
	litWidth := max(2, e.tableBits()+1)
	w.Write([]byte{0, byte(litWidth)}) // no local table; LZW minimum code size
	bw := &subBlocks{w: w}
	lz := lzw.NewWriter(bw, lzw.LSB, litWidth)
	if _, err := lz.Write(p.Pix); err != nil && e.err == nil {
		e.err = err
	}
	if err := lz.Close(); err != nil && e.err == nil {
		e.err = err
	}
	bw.flush()
	if e.err == nil {
		e.err = bw.err
	}
	w.WriteByte(0) // block terminator
}

// subBlocks splits what is written to it into GIF data sub-blocks of at
// most 255 bytes, each preceded by its length.
type subBlocks struct {
	w   *bufio.Writer
	buf [255]byte
	n   int
	err error
}

func (s *subBlocks) Write(p []byte) (int, error) {
	for _, c := range p {
		s.buf[s.n] = c
		if s.n++; s.n == len(s.buf) {
			s.flush()
		}
	}
	return len(p), s.err
}

func (s *subBlocks) flush() {
	if s.n == 0 {
		return
	}
	s.w.WriteByte(byte(s.n))
	if _, err := s.w.Write(s.buf[:s.n]); err != nil && s.err == nil {
		s.err = err
	}
	s.n = 0
}
