package web

import (
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"strconv"
	"strings"

	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/internal/htmlpage"
	"github.com/dlca/dlca/viewer/painter"
)

// Page is what an exported page shows and runs.
type Page struct {
	Name     string           // shown as the title: the model's file or experiment
	Netlist  *circuit.Netlist // the rule (simplified or not); its gate count is shown
	Boundary circuit.Boundary
	FireRate float64 // probability that a cell updates in an asynchronous step
	Seed     uint64  // seeds the page's random states and its fire masks
	RGB      bool    // draw channels 0, 1, 2 as red, green, blue (else channel 0 in grey)
	// Sizes are the grid sizes offered; the first is shown at load.
	Sizes []Size
}

// Size is one grid size of the page, with the experiment's initial state
// and target there where it has them.
type Size struct {
	H, W int
	// Init, when not nil, is the model's initial state (all channels): the
	// page's "model state" reset. Without it that reset draws random bits.
	Init *circuit.Grid
	// Target, when not nil, holds the wanted final values of the channels
	// TargetChannels lists, one plane each: the page counts the cells that
	// differ from it.
	Target         *circuit.Grid
	TargetChannels []int
}

// maxCells bounds a page's grid: 1024x1024 cells runs at a few steps a
// second in a browser; more would freeze the tab.
const maxCells = 1 << 20

// Validate reports what is wrong with p, if anything.
func (p *Page) Validate() error {
	if p.Netlist == nil {
		return fmt.Errorf("web: page has no netlist")
	}
	if err := p.Netlist.Validate(); err != nil {
		return fmt.Errorf("web: %w", err)
	}
	c := p.Netlist.Channels()
	if !p.Netlist.IsCA() {
		return fmt.Errorf("web: the page needs a cellular-automaton netlist (9*C inputs for C outputs), got %d inputs and %d outputs", p.Netlist.NumInputs, c)
	}
	if !(p.FireRate >= 0 && p.FireRate <= 1) {
		return fmt.Errorf("web: fire rate %v, want a probability in [0, 1]", p.FireRate)
	}
	if len(p.Sizes) == 0 {
		return fmt.Errorf("web: page offers no grid size")
	}
	for _, s := range p.Sizes {
		if s.H < 1 || s.W < 1 || s.H*s.W > maxCells {
			return fmt.Errorf("web: grid %dx%d: want 1 to %d cells (a larger grid would freeze the browser tab)", s.H, s.W, maxCells)
		}
		if s.Init != nil && (s.Init.H != s.H || s.Init.W != s.W || s.Init.C != c) {
			return fmt.Errorf("web: initial state %dx%dx%d for a %dx%d grid of %d channels", s.Init.H, s.Init.W, s.Init.C, s.H, s.W, c)
		}
		if s.Target != nil {
			if s.Target.H != s.H || s.Target.W != s.W || s.Target.C != len(s.TargetChannels) {
				return fmt.Errorf("web: target %dx%dx%d for a %dx%d grid and %d target channels", s.Target.H, s.Target.W, s.Target.C, s.H, s.W, len(s.TargetChannels))
			}
			for _, ch := range s.TargetChannels {
				if ch < 0 || ch >= c {
					return fmt.Errorf("web: target channel %d of a %d-channel rule", ch, c)
				}
			}
		}
	}
	return nil
}

//go:embed assets/page.html
var pageHTML string

//go:embed assets/sim.js
var simJS string

//go:embed assets/ui.js
var uiJS string

// pageData is the page's settings as the script reads them (JSON).
type pageData struct {
	Name     string     `json:"name"`
	Gates    int        `json:"gates"`
	Channels int        `json:"channels"`
	Periodic bool       `json:"periodic"`
	FireRate float64    `json:"fireRate"`
	Seed     string     `json:"seed"` // decimal: a uint64 does not fit a JavaScript number
	RGB      bool       `json:"rgb"`
	WrongRGB [3]uint8   `json:"wrongRGB"` // the frame of wrong cells: viewer/painter's WrongColour
	Sizes    []sizeData `json:"sizes"`
}

type sizeData struct {
	H              int    `json:"h"`
	W              int    `json:"w"`
	Init           string `json:"init,omitempty"`   // packed cells, base64
	Target         string `json:"target,omitempty"` // packed cells, base64
	TargetChannels []int  `json:"targetChannels,omitempty"`
}

// Write writes the page as one HTML file: markup, style, the generated
// rule and the simulator, with no external resources.
func Write(w io.Writer, p *Page) error {
	if err := p.Validate(); err != nil {
		return err
	}
	var rule strings.Builder
	if err := RuleJS(&rule, p.Netlist); err != nil {
		return err
	}
	d := pageData{Name: p.Name, Gates: len(circuit.RemoveDead(p.Netlist).Gates), Channels: p.Netlist.Channels(),
		Periodic: p.Boundary == circuit.Periodic, FireRate: p.FireRate, Seed: strconv.FormatUint(p.Seed, 10), RGB: p.RGB,
		WrongRGB: [3]uint8{painter.WrongColour.R, painter.WrongColour.G, painter.WrongColour.B}}
	for _, s := range p.Sizes {
		sd := sizeData{H: s.H, W: s.W}
		if s.Init != nil {
			sd.Init = packCells(s.Init)
		}
		if s.Target != nil {
			sd.Target, sd.TargetChannels = packCells(s.Target), s.TargetChannels
		}
		d.Sizes = append(d.Sizes, sd)
	}
	// json.Marshal escapes <, > and &, so no name can close the script.
	data, err := json.Marshal(d)
	if err != nil {
		return err
	}
	return htmlpage.Fill(w, pageHTML, map[string]string{
		"Title": html.EscapeString(p.Name), "Data": string(data), "Rule": rule.String(), "Sim": simJS, "UI": uiJS,
	})
}

// packCells packs g's bits cell-major (as Grid.Cells lays them out), eight
// to a byte, least significant bit first, in base64.
func packCells(g *circuit.Grid) string {
	cells := g.Unpack()
	b := make([]byte, (len(cells)+7)/8)
	for i, v := range cells {
		b[i/8] |= v << (i % 8)
	}
	return base64.StdEncoding.EncodeToString(b)
}
