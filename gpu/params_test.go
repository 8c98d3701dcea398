package gpu

import (
	"encoding/binary"
	"testing"
)

// TestParamsSizes ties each Go uniform struct to the size of the WGSL struct
// it mirrors (4-byte fields, padded to 16 bytes).
func TestParamsSizes(t *testing.T) {
	for _, c := range []struct {
		name   string
		params any
		wgsl   int // size of the WGSL struct: fields * 4, padding included
	}{
		{"CountParams", countParams{}, 16},
		{"GateParams", gateParams{}, 32},
		{"ClipParams", clipParams{}, 16},
		{"AdamParams", adamParams{}, 16},
		{"GridParams", gridParams{}, 32},
		{"ConcatParams", concatParams{}, 16},
		{"CellParams", cellParams{}, 16},
	} {
		if got := binary.Size(c.params); got != c.wgsl {
			t.Errorf("%s: Go struct is %d bytes, WGSL struct %d", c.name, got, c.wgsl)
		}
	}
}

// TestCoeffTableMatchesGates checks that the table uploaded to the device
// reproduces every op's truth table at the four corners of {0,1}^2.
func TestCoeffTableMatchesGates(t *testing.T) {
	tab := coeffTable()
	for op := range 16 {
		c := tab[4*op : 4*op+4]
		for _, ab := range [][2]uint8{{0, 0}, {0, 1}, {1, 0}, {1, 1}} {
			a, b := float32(ab[0]), float32(ab[1])
			y := c[0] + c[1]*a + c[2]*b + c[3]*a*b
			want := float32((op >> (3 - (2*ab[0] + ab[1]))) & 1)
			if y != want {
				t.Errorf("op %d at a=%v b=%v: table gives %v, truth table %v", op, a, b, y, want)
			}
		}
	}
}
