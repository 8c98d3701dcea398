package painter

import (
	"fmt"
	"image/color"
)

// The loss plot's colours: the viewer's panel draws with them, and the
// training page (web) reads them from here, so the two agree.
var (
	SoftLossColour = color.RGBA{R: 90, G: 160, B: 255, A: 255}
	HardLossColour = color.RGBA{R: 255, G: 140, B: 60, A: 255}
	// PlotAxisColour draws a plot's frame and axes, PlotTextColour its
	// tick labels, on PlotBackground.
	PlotAxisColour = color.RGBA{R: 90, G: 90, B: 100, A: 255}
	PlotTextColour = color.RGBA{R: 150, G: 150, B: 160, A: 255}
	PlotBackground = color.RGBA{R: 22, G: 22, B: 26, A: 255}
)

// CSS returns c as a CSS colour, #rrggbb (c is opaque).
func CSS(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }
