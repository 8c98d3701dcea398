package state

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"testing"
)

// Fuzz targets of the two readers of state files, outside input that
// dlca eval -init and experiment files (init.file, target.file) name. Their
// seeds run as ordinary tests; to fuzz (docs/RELIABILITY.md):
//
//	go test ./internal/state -run '^$' -fuzz '^FuzzReadNPY$' -fuzztime 60s
//	go test ./internal/state -run '^$' -fuzz '^FuzzReadPNG$' -fuzztime 60s

// checkRead holds what a reader returned to the promise: an error, or a
// state of spec's channels whose values spec allows.
func checkRead(t *testing.T, s *State, err error, spec Spec) {
	if err != nil {
		if s != nil {
			t.Fatalf("a state and an error (%v)", err)
		}
		return
	}
	if s.Channels != spec.Channels || s.Height < 1 || s.Width < 1 || len(s.Values) != s.Height*s.Width*s.Channels {
		t.Fatalf("state %dx%dx%d with %d values for %d channels", s.Height, s.Width, s.Channels, len(s.Values), spec.Channels)
	}
	for i, v := range s.Values {
		if !(v >= 0 && v <= 1) || !spec.Soft && v != 0 && v != 1 {
			t.Fatalf("value %d is %v (soft %v)", i, v, spec.Soft)
		}
	}
}

func FuzzReadNPY(f *testing.F) {
	f.Add(handNPY("{'descr': '|u1', 'fortran_order': False, 'shape': (2, 3, 2), }", []byte{0, 1, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1}), uint8(2), false)
	f.Add(handNPY("{'descr': '<f4', 'fortran_order': True, 'shape': (1, 2), }", le32(0.25, 1)), uint8(1), true)
	f.Add(handNPY("{'descr': '<i8', 'fortran_order': False, 'shape': (100000, 100000, 1), }", nil), uint8(1), false)
	f.Add([]byte("\x93NUMPY\x02\x00"), uint8(1), false)
	f.Fuzz(func(t *testing.T, data []byte, channels uint8, soft bool) {
		spec := Spec{Channels: int(channels%8) + 1, Soft: soft}
		s, err := ReadNPY(bytes.NewReader(data), spec)
		checkRead(t, s, err, spec)
	})
}

func FuzzReadPNG(f *testing.F) {
	img := image.NewNRGBA(image.Rect(0, 0, 3, 2))
	img.Set(1, 0, color.White)
	img.Set(2, 1, color.NRGBA{255, 0, 0, 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes(), uint8(2), "")
	f.Add(buf.Bytes(), uint8(3), "#ff0000=0,#ffffff=0+1")
	f.Fuzz(func(t *testing.T, data []byte, channels uint8, palette string) {
		spec := Spec{Channels: int(channels%8) + 1, Threshold: DefaultThreshold, MaxSide: 4096}
		if palette != "" {
			p, err := ParsePalette(palette)
			if err != nil {
				return
			}
			spec.Palette = p
		}
		s, err := ReadPNG(bytes.NewReader(data), spec)
		checkRead(t, s, err, spec)
	})
}
