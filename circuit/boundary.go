package circuit

import "fmt"

// Boundary says what a cell at the edge of a grid sees beyond it. It is the
// one boundary type of the project: dlca's configs and model files use it
// too. The zero value is Zero.
type Boundary uint8

const (
	// Zero surrounds the grid with cells whose every channel is 0.
	Zero Boundary = iota
	// Periodic wraps the grid around into a torus: the left neighbour of
	// column 0 is the last column, and likewise for rows.
	Periodic
)

// String returns "zero" or "periodic".
func (b Boundary) String() string {
	switch b {
	case Zero:
		return "zero"
	case Periodic:
		return "periodic"
	}
	return fmt.Sprintf("Boundary(%d)", uint8(b))
}

// ParseBoundary turns "zero" or "periodic" into a Boundary.
func ParseBoundary(s string) (Boundary, error) {
	switch s {
	case "zero":
		return Zero, nil
	case "periodic":
		return Periodic, nil
	}
	return 0, fmt.Errorf("circuit: unknown boundary %q (want \"zero\" or \"periodic\")", s)
}

// MarshalText writes the boundary's name, so JSON holds "zero"/"periodic".
func (b Boundary) MarshalText() ([]byte, error) {
	if b > Periodic {
		return nil, fmt.Errorf("circuit: cannot encode %v", b)
	}
	return []byte(b.String()), nil
}

// UnmarshalText parses a boundary's name.
func (b *Boundary) UnmarshalText(text []byte) error {
	v, err := ParseBoundary(string(text))
	if err != nil {
		return err
	}
	*b = v
	return nil
}
