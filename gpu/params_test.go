package gpu

import (
	"encoding/binary"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// uniformStructs maps each WGSL uniform struct to the Go struct mirroring it.
var uniformStructs = map[string]any{
	"CountParams":      countParams{},
	"GateParams":       gateParams{},
	"ClipParams":       clipParams{},
	"PenaltyParams":    penaltyParams{},
	"GridParams":       gridParams{},
	"ConcatParams":     concatParams{},
	"CellParams":       cellParams{},
	"EwParams":         ewParams{},
	"AxisParams":       axisParams{},
	"SGDParams":        sgdParams{},
	"AdamUpdateParams": adamUpdateParams{},
	"MatMulParams":     matMulParams{},
	"LayoutParams":     layoutParams{},
	"GatherParams":     gatherParams{},
	"PoolParams":       poolParams{},
	"DropoutParams":    dropoutParams{},
	"ConvParams":       convParams{},
}

var (
	structDecl = regexp.MustCompile(`(?s)struct (\w+) \{(.*?)\}`)
	fieldDecl  = regexp.MustCompile(`^\s*(\w+): (u32|f32|array<vec4<u32>, (\d+)>),$`)
)

// TestParamsMirrorWGSL reads every struct declared in the source compiled
// for each kernel (shaders/lib/params.wgsl, which declares them all, where
// the kernel asks for it) and checks that its 4-byte fields fill exactly the
// Go struct that mirrors it and that the size is a multiple of 16 bytes.
func TestParamsMirrorWGSL(t *testing.T) {
	names := allShaders(t)
	seen := map[string]string{} // struct name -> its field list, as first declared
	for _, path := range names {
		for _, m := range structDecl.FindAllStringSubmatch(kernelSource(t, path), -1) {
			name, body := m[1], strings.TrimSpace(m[2])
			where := fmt.Sprintf("struct %s (compiled for %s)", name, path)
			fields := strings.Join(strings.Fields(body), " ")
			if first, ok := seen[name]; ok {
				if first != fields {
					t.Errorf("%s differs from its first declaration:\n%s\nvs\n%s", where, fields, first)
				}
				continue // checked already
			}
			seen[name] = fields
			lines := strings.Split(body, "\n")
			words := 0 // 4-byte words
			for _, l := range lines {
				m := fieldDecl.FindStringSubmatch(l)
				switch {
				case m == nil:
					t.Errorf("%s: field %q is not a u32, an f32 or an array<vec4<u32>, N>", where, strings.TrimSpace(l))
				case m[3] != "":
					n, _ := strconv.Atoi(m[3])
					words += 4 * n
				default:
					words++
				}
			}
			goStruct, ok := uniformStructs[name]
			if !ok {
				t.Errorf("%s has no Go mirror in uniformStructs", where)
				continue
			}
			if got, want := binary.Size(goStruct), 4*words; got != want {
				t.Errorf("%s is %d bytes, its Go mirror %T %d", where, want, goStruct, got)
			}
			if (4*words)%16 != 0 {
				t.Errorf("%s is %d bytes, not a multiple of 16", where, 4*words)
			}
		}
	}
	for name := range uniformStructs {
		if _, ok := seen[name]; !ok {
			t.Errorf("Go mirror of %s, which no shader declares", name)
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
