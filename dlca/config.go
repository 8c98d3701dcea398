package dlca

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/dlca/dlca/circuit"
)

// NeighbourhoodSize is the number of cells a perception kernel reads: the 3x3
// Moore neighbourhood, row-major, index Centre being the cell itself.
const NeighbourhoodSize = 9

// Centre is the index of the cell itself in its 3x3 neighbourhood.
const Centre = 4

// Default values used by DefaultConfig and by the paper.
const (
	DefaultPassThrough = 10.0 // initial logit of the pass-through gate A
	DefaultFireRate    = 0.6  // probability that a cell fires in an async step
)

// Config describes a cellular automaton's architecture. Everything needed to
// rebuild the model except the learned logits is here (the wiring follows
// from Seed, but model files store it explicitly anyway). A model file must
// hold the fields tagged `jsonfile:"required"` (internal/jsonfile); Seed and
// PassThrough are informative there.
type Config struct {
	// Height and Width of the training grid. A model runs on any grid size;
	// these only record what it was trained on.
	Height int `json:"height" jsonfile:"required"`
	Width  int `json:"width" jsonfile:"required"`
	// Channels is C, the number of state bits per cell.
	Channels int              `json:"channels" jsonfile:"required"`
	Boundary circuit.Boundary `json:"boundary" jsonfile:"required"`
	// Kernels is K, the number of perception kernels. They share one wiring
	// and each has its own logits.
	Kernels int `json:"kernels" jsonfile:"required"`
	// KernelLayers are the perception kernel's layer widths, input first:
	// [9, 8, 4, 2] means 9 inputs (the neighbourhood), then layers of 8
	// (Moore wiring), 4 and 2 gates (unique wiring).
	KernelLayers []int `json:"kernel_layers" jsonfile:"required"`
	// UpdateLayers are the update network's gate counts per layer, without
	// its input width (which is Channels + Channels*Kernels*last kernel
	// layer). The last must equal Channels.
	UpdateLayers []int `json:"update_layers" jsonfile:"required"`
	// Seed seeds the wiring (and any random initialisation).
	Seed uint64 `json:"seed"`
	// PassThrough is the initial logit of gate A; all others start at 0.
	PassThrough float64 `json:"pass_through"`
	// FireRate is the probability that a cell updates in an asynchronous
	// step (one draw per cell per step, shared by its channels).
	FireRate float64 `json:"fire_rate" jsonfile:"required"`
	// Wiring says how the layers after the first perception layer are
	// wired: "" (unique wiring, gates.UniqueWiring, the paper's) or
	// WiringRandom (gates.RandomWiring, Petersen et al.'s). Model files
	// store the wiring itself; this records how it was drawn.
	Wiring string `json:"wiring,omitempty"`
	// RNG names the random stream that draws the wiring and the fire masks
	// (stream.go): "" or "pcg" for this project's PCG streams, "jax" for the
	// paper's notebook's (JAX 0.4.33 threefry). It is left out of a model
	// file when empty, so files written before it existed read as "pcg".
	RNG string `json:"rng,omitempty"`
}

// WiringRandom is Config.Wiring for random wiring (gates.RandomWiring).
const WiringRandom = "random"

// PerceptionBits is the number of perception outputs per channel and kernel
// (the last kernel layer's width).
func (c Config) PerceptionBits() int { return c.KernelLayers[len(c.KernelLayers)-1] }

// UpdateInputs is the update network's input width: the cell's own C bits
// followed by C*K*PerceptionBits perception bits.
func (c Config) UpdateInputs() int { return c.Channels * (1 + c.Kernels*c.PerceptionBits()) }

// Validate reports everything wrong with c, each saying what to change.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if c.Height < 1 || c.Width < 1 {
		bad("grid is %dx%d: height and width must be at least 1", c.Height, c.Width)
	}
	if c.Channels < 1 {
		bad("channels is %d: a cell needs at least 1 channel", c.Channels)
	}
	if c.Boundary > circuit.Periodic {
		bad("boundary %v: use zero or periodic", c.Boundary)
	}
	if c.Wiring != "" && c.Wiring != WiringRandom {
		bad("wiring %q: use \"\" (unique) or %q", c.Wiring, WiringRandom)
	}
	if c.Wiring == WiringRandom && c.RNG == StreamJAX {
		bad("wiring %q with rng %q: the JAX stream draws the notebook's unique wiring; use rng %q for random wiring", c.Wiring, c.RNG, StreamPCG)
	}
	if c.Kernels < 1 {
		bad("kernels is %d: perception needs at least 1 kernel", c.Kernels)
	}
	if len(c.KernelLayers) < 2 || c.KernelLayers[0] != NeighbourhoodSize || c.KernelLayers[1] != 8 {
		bad("kernel_layers %v: must start with 9 (the 3x3 neighbourhood) then 8 (one gate per neighbour, b = centre), e.g. [9 8 4 2]", c.KernelLayers)
	} else {
		for i := 2; i < len(c.KernelLayers); i++ {
			if err := c.layerFits("kernel_layers", i, c.KernelLayers[i-1], c.KernelLayers[i]); err != nil {
				errs = append(errs, err)
			}
		}
	}
	switch n := len(c.UpdateLayers); {
	case n == 0:
		bad("update_layers is empty: the update network needs at least one layer, the last of %d gates (one per channel)", c.Channels)
	case c.UpdateLayers[n-1] != c.Channels:
		bad("update_layers ends with %d gates: the last layer must have exactly channels = %d gates (its output is the new state)", c.UpdateLayers[n-1], c.Channels)
	}
	if len(errs) == 0 {
		in := c.UpdateInputs()
		for i, out := range c.UpdateLayers {
			if err := c.layerFits("update_layers", i, in, out); err != nil {
				errs = append(errs, err)
			}
			in = out
		}
	}
	if math.IsNaN(c.PassThrough) || math.IsInf(c.PassThrough, 0) {
		bad("pass_through is %v: must be a finite logit (the paper uses 10)", c.PassThrough)
	}
	if err := checkStream(c.RNG); err != nil {
		errs = append(errs, err)
	}
	if !(c.FireRate > 0 && c.FireRate <= 1) {
		bad("fire_rate is %v: must be in (0, 1] (the paper uses 0.6)", c.FireRate)
	}
	if len(errs) > 0 {
		return fmt.Errorf("dlca: invalid config: %w", errors.Join(errs...))
	}
	return nil
}

// layerFits checks that a layer of out gates can be wired to in inputs:
// at least one gate, and for unique wiring enough gates to read each input
// at least once (2*out >= in).
func (c Config) layerFits(field string, i, in, out int) error {
	if out < 1 {
		return fmt.Errorf("%s[%d] is %d: a layer needs at least 1 gate", field, i, out)
	}
	if c.Wiring != WiringRandom && 2*out < in {
		return fmt.Errorf("%s[%d] has %d gates for %d inputs: unique wiring needs 2*gates >= inputs (use at least %d gates)", field, i, out, in, (in+1)/2)
	}
	return nil
}

// String returns the config as one line of JSON.
func (c Config) String() string {
	b, err := json.Marshal(c)
	if err != nil {
		return fmt.Sprintf("dlca.Config(%v)", err)
	}
	return string(b)
}
