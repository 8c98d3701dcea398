package experiments

import (
	"strings"
	"testing"

	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/dlca"
)

func TestCheckerboardTarget(t *testing.T) {
	// Squares of 2x2 cells, a 0-square in the top-left corner.
	want := []string{
		"00110011",
		"00110011",
		"11001100",
		"11001100",
	}
	got := Checkerboard(4, 8)
	for y, row := range want {
		for x, ch := range row {
			if v := got[y*8+x]; v != float32(ch-'0') {
				t.Fatalf("cell (%d,%d) = %v, want %c", y, x, v, ch)
			}
		}
	}
}

func TestRegistry(t *testing.T) {
	names := Names()
	if len(names) < 2 || names[0] != "checkerboard" {
		t.Fatalf("Names() = %v, want checkerboard first", names)
	}
	e, err := Get("checkerboard")
	if err != nil {
		t.Fatal(err)
	}
	// The paper's table: 264 update inputs, 500 iterations, batch 2, 20 steps, lr 0.05.
	if e.Model.UpdateInputs() != 264 || e.Iterations != 500 || e.Batch != 2 || e.Steps != 20 || e.Optimizer.LR != 0.05 || e.Model.Boundary != circuit.Zero {
		t.Fatalf("checkerboard settings differ from the paper: %+v", e)
	}
	e.Model.UpdateLayers[0] = 1 // a copy: the registry must not change
	if f, _ := Get("checkerboard"); f.Model.UpdateLayers[0] != 256 {
		t.Fatal("Get returned the registered experiment itself, not a copy")
	}
	if _, err := Get("lizzard"); err == nil || !strings.Contains(err.Error(), "checkerboard") {
		t.Fatalf("unknown experiment: error %v, want one listing the known ones", err)
	}
}

func TestWrongCells(t *testing.T) {
	e, _ := Get("checkerboard")
	s := dlca.NewBits(1, 8, 8, 8)
	target := Checkerboard(8, 8)
	for i, v := range target {
		s.Set(0, i/8, i%8, 0, uint8(v))
	}
	if n := WrongCells(e, s, 0); n != 0 {
		t.Fatalf("the target itself has %d wrong cells", n)
	}
	s.Set(0, 0, 0, 0, 1) // corner: outside any centre hole
	s.Set(0, 4, 4, 0, 1-s.Get(0, 4, 4, 0))
	if n := WrongCells(e, s, 0); n != 2 {
		t.Fatalf("two flipped cells: %d wrong", n)
	}
	if n := WrongCells(e, s, 2); n != 1 {
		t.Fatalf("with the centre 2x2 skipped: %d wrong, want 1", n)
	}
}
