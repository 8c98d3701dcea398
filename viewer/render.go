package viewer

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"strings"

	"github.com/dlca/dlca/viewer/painter"
)

var (
	backgroundColour = painter.PlotBackground
	panelColour      = color.RGBA{36, 36, 42, 255}
	textColour       = color.RGBA{225, 225, 225, 255}
	dimColour        = painter.PlotTextColour
	softColour       = painter.SoftLossColour // the training page's too (web)
	hardColour       = painter.HardLossColour
	overlayColour    = color.RGBA{0, 0, 0, 240} // premultiplied: nearly opaque black
)

// The text cell of basicfont.Face7x13 with line spacing, in pixels.
const (
	charWidth  = 7
	lineHeight = 14
)

// Render returns the current picture and its version, composing it only
// when something changed since the last call (the version changes then
// too). The image is reused by later calls. A pending screenshot is written
// from exactly the returned picture.
func (a *App) Render() (*image.RGBA, int) {
	if a.frame == nil || a.frame.Rect.Size() != a.size {
		a.frame = image.NewRGBA(image.Rectangle{Max: a.size})
		a.drawn = -1
	}
	if a.drawn != a.version {
		a.compose(a.frame)
		a.drawn = a.version
	}
	drawn := a.drawn
	if msg, took := a.shots.take(a.frame); took {
		a.message = msg
		a.version++
	}
	return a.frame, drawn
}

func (a *App) compose(dst *image.RGBA) {
	fill(dst, dst.Rect, backgroundColour)
	if a.sim != nil {
		f := a.sim.Frame()
		a.shownWrong = a.wrong(f)
		painter.PaintAt(dst, a.gridRect.Min, f, a.view)
		painter.MarkWrong(dst, a.gridRect.Min, f.H, f.W, a.shownWrong, a.view)
	} else {
		drawText(dst, image.Pt(margin, margin), textColour, "waiting for the first model...")
	}
	if p := a.panelRect(); !p.Empty() {
		a.drawPanel(dst, p)
	}
	if a.help {
		a.drawHelp(dst)
	}
}

// drawPanel draws the figures and, for a live run, the loss curve.
func (a *App) drawPanel(dst *image.RGBA, r image.Rectangle) {
	fill(dst, r, panelColour)
	t := textBox{dst: dst, at: r.Min.Add(image.Pt(margin, margin)), maxChars: (r.Dx() - 2*margin) / charWidth}
	if a.opt.Title != "" {
		t.line(textColour, a.opt.Title)
	}
	state := "running"
	if a.paused {
		state = "paused"
	}
	t.line(textColour, fmt.Sprintf("step %d  %s  %d steps/s", a.steps, state, a.Speed()))
	t.line(textColour, fmt.Sprintf("%s  %s  %s", pick(a.mode.Hard, "hard", "soft"), pick(a.mode.Async, "async", "sync"), a.channelName()))
	if f := a.Frame(); f.H > 0 {
		t.line(dimColour, fmt.Sprintf("grid %dx%d, %d channels, x%d", f.H, f.W, f.C, a.scale))
		if a.sim != nil && a.shownWrong != nil {
			n := painter.CountWrong(a.shownWrong)
			t.line(pick(n == 0, textColour, painter.WrongColour), fmt.Sprintf("%d of %d cells wrong (framed)", n, f.H*f.W))
		}
	}
	if a.live != nil {
		a.drawTraining(&t, r)
	}
	if a.message != "" {
		t.line(textColour, a.message)
	}
	t.line(dimColour, "F1: keys")
}

func (a *App) drawTraining(t *textBox, r image.Rectangle) {
	p := a.stats.latest
	t.skip()
	switch {
	case a.stats.ended && a.stats.err != nil:
		t.line(hardColour, "training failed:")
		t.line(hardColour, a.stats.err.Error())
	case a.stats.ended && p.Iter == p.Iters:
		t.line(textColour, "training finished")
	case a.stats.ended:
		t.line(textColour, "training stopped")
	default:
		t.line(textColour, "training")
	}
	t.line(textColour, fmt.Sprintf("iteration %d / %d", p.Iter, p.Iters))
	t.line(softColour, fmt.Sprintf("soft loss %.4g", p.SoftLoss))
	t.line(hardColour, fmt.Sprintf("hard loss %.4g", p.HardLoss))
	t.line(textColour, fmt.Sprintf("active gates %d", p.ActiveGates))
	t.line(textColour, fmt.Sprintf("%.2f iterations/s", a.stats.rate()))
	plot := image.Rect(r.Min.X+margin, t.at.Y+4, r.Max.X-margin, t.at.Y+4+plotHeight)
	if plot.Max.Y < r.Max.Y-2*lineHeight {
		drawLossPlot(t.dst, plot, a.stats.soft, a.stats.hard)
		t.at.Y = plot.Max.Y + 6
	}
}

// wrong returns which cells of f differ from the target, or nil when
// there is no target to compare with.
func (a *App) wrong(f painter.Frame) []bool {
	if a.opt.Wrong == nil {
		return nil
	}
	return a.opt.Wrong(f)
}

func (a *App) channelName() string {
	if a.view.RGB {
		return "channels 0-2 as RGB"
	}
	return fmt.Sprintf("channel %d", a.view.Channel)
}

// drawHelp lists the keys over the grid area.
func (a *App) drawHelp(dst *image.RGBA) {
	lines := []string{"keys"}
	for _, b := range Bindings {
		lines = append(lines, fmt.Sprintf("%-6s %s", b.Label, b.Help))
	}
	lines = append(lines, "drag   wipe cells with the mouse")
	box := image.Rect(0, 0, charWidth*44+2*margin, len(lines)*lineHeight+2*margin)
	box = box.Add(image.Pt(margin, margin))
	draw.Draw(dst, box.Intersect(dst.Rect), image.NewUniform(overlayColour), image.Point{}, draw.Over)
	t := textBox{dst: dst, at: box.Min.Add(image.Pt(margin, margin))}
	for _, l := range lines {
		t.line(textColour, l)
	}
}

// textBox writes lines of text downwards from at, wrapping them at
// maxChars characters (0: no limit).
type textBox struct {
	dst      *image.RGBA
	at       image.Point
	maxChars int
}

func (t *textBox) line(c color.RGBA, s string) {
	for _, l := range wrap(s, t.maxChars) {
		drawText(t.dst, t.at, c, l)
		t.at.Y += lineHeight
	}
}

// wrap splits s into lines of at most n characters, at spaces where it can.
func wrap(s string, n int) []string {
	var lines []string
	for n > 0 && len(s) > n {
		cut := strings.LastIndexByte(s[:n+1], ' ')
		if cut <= 0 {
			cut = n
		}
		lines = append(lines, s[:cut])
		s = strings.TrimLeft(s[cut:], " ")
	}
	return append(lines, s)
}

func (t *textBox) skip() { t.at.Y += lineHeight / 2 }

// drawText writes s with its top-left corner at p.
func drawText(dst *image.RGBA, p image.Point, c color.RGBA, s string) {
	painter.WriteText(dst, p, c, s)
}

func fill(dst *image.RGBA, r image.Rectangle, c color.RGBA) {
	draw.Draw(dst, r, image.NewUniform(c), image.Point{}, draw.Src)
}

func pick[T any](cond bool, yes, no T) T {
	if cond {
		return yes
	}
	return no
}
