package viewer

import (
	"image"

	"github.com/dlca/dlca/viewer/painter"
)

// Mode is how a Simulator steps.
type Mode struct {
	Hard  bool // discretised circuit on bits instead of the soft model
	Async bool // each cell fires with the model's fire rate instead of all at once
}

// Simulator is a cellular automaton the App can show and poke. The App calls
// it from one goroutine only.
type Simulator interface {
	// Frame returns the current state. The App does not keep it across
	// calls that change the state.
	Frame() painter.Frame
	// Step advances the state by one step in the current mode.
	Step()
	// Reset replaces the state with a new initial state (for random
	// initial states, a new draw).
	Reset()
	// Wipe sets every channel of the cells in r (grid coordinates) to 0;
	// r may reach outside the grid.
	Wipe(r image.Rectangle)
	// SetMode chooses how later steps run.
	SetMode(m Mode)
}
