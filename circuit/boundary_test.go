package circuit

import (
	"encoding/json"
	"strings"
	"testing"
)

// A boundary is written in JSON by name, and an unknown name is an error
// that lists the known ones.
func TestBoundaryJSON(t *testing.T) {
	b, err := json.Marshal(Periodic)
	if err != nil || string(b) != `"periodic"` {
		t.Fatalf("Marshal(Periodic) = %s, %v", b, err)
	}
	var got Boundary
	if err := json.Unmarshal([]byte(`"zero"`), &got); err != nil || got != Zero {
		t.Fatalf("Unmarshal zero = %v, %v", got, err)
	}
	if err := json.Unmarshal([]byte(`"toroidal"`), &got); err == nil || !strings.Contains(err.Error(), "periodic") {
		t.Fatalf("Unmarshal toroidal: %v", err)
	}
	if _, err := json.Marshal(Boundary(7)); err == nil {
		t.Fatal("Marshal(Boundary(7)) succeeded")
	}
	// The zero value is Zero, so a config that names no boundary pads with 0s.
	if Boundary(0) != Zero || Zero.String() != "zero" || Periodic.String() != "periodic" {
		t.Fatalf("Boundary(0) = %v, Zero = %v, Periodic = %v", Boundary(0), Zero, Periodic)
	}
}
