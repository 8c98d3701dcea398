package viewer

import "image"

// Layout constants, in pixels.
const (
	margin     = 8
	panelWidth = 288 // the side panel, shown when the screen is wide enough
	minPanelAt = 2 * panelWidth
)

// panelRect returns where the side panel goes, or an empty rectangle when
// the screen is too narrow for it.
func (a *App) panelRect() image.Rectangle {
	if a.size.X < minPanelAt {
		return image.Rectangle{}
	}
	return image.Rect(a.size.X-panelWidth, 0, a.size.X, a.size.Y)
}

// relayout places the grid: the largest whole scale that fits the space left
// of the panel (at least 1), centred in it.
func (a *App) relayout() {
	if a.sim == nil {
		return
	}
	f := a.sim.Frame()
	area := image.Rect(0, 0, a.size.X, a.size.Y)
	if p := a.panelRect(); !p.Empty() {
		area.Max.X = p.Min.X
	}
	area = area.Inset(margin)
	s := 1
	if f.W > 0 && f.H > 0 {
		s = max(1, min(area.Dx()/f.W, area.Dy()/f.H))
	}
	a.scale = s
	a.view.Scale = s
	sz := a.view.Size(f.H, f.W)
	at := area.Min.Add(area.Size().Sub(sz).Div(2))
	a.gridRect = image.Rectangle{Min: at, Max: at.Add(sz)}
}

// CellAt returns the grid cell under screen point p and whether there is one.
func (a *App) CellAt(p image.Point) (image.Point, bool) {
	if a.sim == nil || !p.In(a.gridRect) {
		return image.Point{}, false
	}
	return p.Sub(a.gridRect.Min).Div(a.scale), true
}

// wipeAlong wipes a brush-sized square at the cell under the pointer while
// the button is held, and along the straight line from the previous tick's
// cell, so that a fast drag leaves no gaps.
func (a *App) wipeAlong(at image.Point, down bool) {
	cell, ok := a.CellAt(at)
	if !down || !ok {
		a.dragging = false
		return
	}
	from := cell
	if a.dragging {
		from = a.lastCell
	}
	for _, c := range line(from, cell) {
		a.sim.Wipe(brush(c, a.opt.Brush))
	}
	a.dragging, a.lastCell = true, cell
	a.version++
}

// brush is the square of side n cells around c (for even n, the extra row
// and column are below and to the right).
func brush(c image.Point, n int) image.Rectangle {
	lo := c.Sub(image.Pt((n-1)/2, (n-1)/2))
	return image.Rectangle{Min: lo, Max: lo.Add(image.Pt(n, n))}
}

// line returns the cells from p to q inclusive, one per step along the
// longer axis (a digital straight line).
func line(p, q image.Point) []image.Point {
	d := q.Sub(p)
	n := max(abs(d.X), abs(d.Y))
	pts := make([]image.Point, 0, n+1)
	for i := 0; i <= n; i++ {
		if n == 0 {
			pts = append(pts, p)
			break
		}
		pts = append(pts, image.Pt(p.X+roundDiv(d.X*i, n), p.Y+roundDiv(d.Y*i, n)))
	}
	return pts
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// roundDiv returns a/b rounded half away from zero, for b > 0.
func roundDiv(a, b int) int {
	if a < 0 {
		return -((-a + b/2) / b)
	}
	return (a + b/2) / b
}
