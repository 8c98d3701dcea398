package viewer_test

import (
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dlca/dlca/viewer"
	"github.com/dlca/dlca/viewer/internal/toy"
	"github.com/dlca/dlca/viewer/painter"
)

// newApp returns an App showing a 12x10 toy grid with 3 channels in a
// 640x400 screen, paused so that only the test moves time.
func newApp(t *testing.T, opt viewer.Options) (*viewer.App, *toy.Life) {
	t.Helper()
	sim := toy.NewLife(12, 10, 3, 7)
	opt.Paused = true
	if opt.ScreenshotDir == "" {
		opt.ScreenshotDir = t.TempDir()
	}
	a := viewer.New(sim, opt)
	a.Layout(640, 400)
	return a, sim
}

func update(t *testing.T, a *viewer.App, ticks ...viewer.Tick) {
	t.Helper()
	for _, tk := range ticks {
		if err := a.Update(tk); err != nil {
			t.Fatalf("Update: %v", err)
		}
		a.Render()
	}
}

func TestLayoutLargestWholeScale(t *testing.T) {
	a, _ := newApp(t, viewer.Options{})
	// Space left of the 288 px panel, minus 8 px margins: 336 x 384 pixels.
	// 10 columns: 33 px; 12 rows: 32 px; the smaller wins.
	if got := a.View().Scale; got != 32 {
		t.Fatalf("scale %d, want 32", got)
	}
	want := image.Rect(0, 0, 320, 384).Add(image.Pt(8+(336-320)/2, 8))
	if got := a.GridRect(); got != want {
		t.Errorf("grid at %v, want %v", got, want)
	}
	a.Layout(300, 200) // too narrow for the panel: the whole width is grid area
	if got := a.View().Scale; got != 15 {
		t.Errorf("after resize scale %d, want min(284/10, 184/12) = 15", got)
	}
}

func TestRenderedGridEqualsPainter(t *testing.T) {
	for _, view := range []painter.Options{{}, {Channel: 2}, {RGB: true}, {GridLines: true}} {
		a, sim := newApp(t, viewer.Options{View: view})
		update(t, a, viewer.Tick{Do: []viewer.Action{viewer.StepOnce}})
		img, _ := a.Render()
		opts := view
		opts.Scale = 32
		want := painter.Paint(sim.Frame(), opts)
		assertRegion(t, img, a.GridRect(), want)
	}
}

func TestWipeChangesOnlyWhereTheMouseWent(t *testing.T) {
	a, sim := newApp(t, viewer.Options{Brush: 3})
	before := sim.Frame().Clone()
	r := a.GridRect()
	at := func(col, row int) image.Point { return r.Min.Add(image.Pt(col*32+16, row*32+16)) }
	// Press on cell (col 2, row 5), jump to col 7 in one tick, release.
	update(t, a,
		viewer.Tick{At: at(2, 5), Down: true},
		viewer.Tick{At: at(7, 5), Down: true},
		viewer.Tick{At: at(7, 5)},
		viewer.Tick{At: at(1, 1)}, // moving without the button wipes nothing
	)
	after := sim.Frame()
	// The 3x3 brush swept columns 1..8 of rows 4..6.
	wiped := image.Rect(1, 4, 9, 7)
	for y := 0; y < after.H; y++ {
		for x := 0; x < after.W; x++ {
			for c := 0; c < after.C; c++ {
				got, was := after.At(y, x, c), before.At(y, x, c)
				switch in := image.Pt(x, y).In(wiped); {
				case in && got != 0:
					t.Errorf("cell (%d,%d) channel %d = %v inside the wiped path", x, y, c, got)
				case !in && got != was:
					t.Errorf("cell (%d,%d) channel %d changed %v -> %v outside the path", x, y, c, was, got)
				}
			}
		}
	}
	if a.Steps() != 0 {
		t.Errorf("%d steps while paused", a.Steps())
	}
}

func TestPauseStopsTime(t *testing.T) {
	a, sim := newApp(t, viewer.Options{Speed: 60})
	update(t, a, viewer.Tick{Do: []viewer.Action{viewer.Pause}}) // resume
	update(t, a, make([]viewer.Tick, 30)...)
	if a.Steps() != 31 || sim.Steps != 31 {
		t.Fatalf("running at 60 steps/s for 31 ticks: %d steps (simulator %d), want 31", a.Steps(), sim.Steps)
	}
	update(t, a, viewer.Tick{Do: []viewer.Action{viewer.Pause}})
	frozen := sim.Frame().Clone()
	update(t, a, make([]viewer.Tick, 120)...)
	if a.Steps() != 31 || sim.Steps != 31 {
		t.Errorf("paused for 120 ticks: %d steps, want 31", a.Steps())
	}
	assertFrame(t, sim.Frame(), frozen)
}

func TestSpeed(t *testing.T) {
	a, _ := newApp(t, viewer.Options{Speed: 10})
	update(t, a, viewer.Tick{Do: []viewer.Action{viewer.Pause}})
	update(t, a, make([]viewer.Tick, 59)...)
	if a.Steps() != 10 {
		t.Errorf("10 steps/s for 60 ticks: %d steps", a.Steps())
	}
	update(t, a, viewer.Tick{Do: []viewer.Action{viewer.Faster}})
	if a.Speed() != 20 {
		t.Errorf("faster than 10: %d", a.Speed())
	}
}

func TestStepAdvancesExactlyOneStep(t *testing.T) {
	a, sim := newApp(t, viewer.Options{})
	ref := toy.NewLife(12, 10, 3, 7) // same seed: the same initial state
	ref.Reset()
	assertFrame(t, sim.Frame(), ref.Frame())
	for i := 1; i <= 3; i++ {
		update(t, a, viewer.Tick{Do: []viewer.Action{viewer.StepOnce}}, viewer.Tick{}, viewer.Tick{})
		ref.Step()
		if a.Steps() != i {
			t.Fatalf("after %d step keys: %d steps", i, a.Steps())
		}
		assertFrame(t, sim.Frame(), ref.Frame())
	}
}

func TestModeChannelAndReset(t *testing.T) {
	a, sim := newApp(t, viewer.Options{})
	update(t, a, viewer.Tick{Do: []viewer.Action{viewer.ToggleHard, viewer.ToggleAsync, viewer.StepOnce}})
	if m := a.Mode(); !m.Hard || !m.Async {
		t.Errorf("mode %+v, want hard async", m)
	}
	var seen []string
	for i := 0; i < 5; i++ {
		v := a.View()
		seen = append(seen, map[bool]string{true: "rgb", false: string(rune('0' + v.Channel))}[v.RGB])
		update(t, a, viewer.Tick{Do: []viewer.Action{viewer.NextChannel}})
	}
	if got := strings.Join(seen, " "); got != "0 1 2 rgb 0" {
		t.Errorf("channel cycle %s, want 0 1 2 rgb 0", got)
	}
	before := sim.Frame().Clone()
	update(t, a, viewer.Tick{Do: []viewer.Action{viewer.Reset}})
	if a.Steps() != 0 {
		t.Errorf("%d steps after reset", a.Steps())
	}
	if framesEqual(before, sim.Frame()) {
		t.Error("reset kept the state")
	}
}

func TestScreenshotKeyWritesTheScreen(t *testing.T) {
	dir := t.TempDir()
	a, _ := newApp(t, viewer.Options{ScreenshotDir: dir})
	shown := render(a)
	update(t, a, viewer.Tick{Do: []viewer.Action{viewer.Screenshot}})
	path, err := a.Screenshot()
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(dir, "dlca-view-001.png") {
		t.Errorf("screenshot at %s", path)
	}
	got := decodePNG(t, path)
	assertRegion(t, got, got.Bounds(), shown)
}

func TestHelpOverlayCoversGrid(t *testing.T) {
	a, _ := newApp(t, viewer.Options{})
	plain := render(a)
	update(t, a, viewer.Tick{Do: []viewer.Action{viewer.ToggleHelp}})
	if sameImage(plain, render(a)) {
		t.Error("help overlay changed nothing")
	}
	update(t, a, viewer.Tick{Do: []viewer.Action{viewer.ToggleHelp}})
	if !sameImage(plain, render(a)) {
		t.Error("closing help did not restore the picture")
	}
}

func TestQuitReplay(t *testing.T) {
	a, _ := newApp(t, viewer.Options{})
	if err := a.Update(viewer.Tick{Do: []viewer.Action{viewer.Quit}}); err != nil {
		t.Fatal(err)
	}
	if err := a.Update(viewer.Tick{}); err != viewer.ErrQuit {
		t.Errorf("after quit Update returned %v, want ErrQuit", err)
	}
}

// assertRegion checks that img's pixels in r equal want's, pixel for pixel.
func assertRegion(t *testing.T, img image.Image, r image.Rectangle, want image.Image) {
	t.Helper()
	if r.Size() != want.Bounds().Size() {
		t.Fatalf("region %v, want size %v", r, want.Bounds().Size())
	}
	for y := 0; y < r.Dy(); y++ {
		for x := 0; x < r.Dx(); x++ {
			g := color.RGBAModel.Convert(img.At(r.Min.X+x, r.Min.Y+y))
			w := color.RGBAModel.Convert(want.At(want.Bounds().Min.X+x, want.Bounds().Min.Y+y))
			if g != w {
				t.Fatalf("pixel (%d,%d) of %v = %v, want %v", x, y, r, g, w)
			}
		}
	}
}

func assertFrame(t *testing.T, got, want painter.Frame) {
	t.Helper()
	if !framesEqual(got, want) {
		t.Fatalf("frames differ")
	}
}

func framesEqual(a, b painter.Frame) bool {
	if a.H != b.H || a.W != b.W || a.C != b.C {
		return false
	}
	for i := range a.Cells {
		if a.Cells[i] != b.Cells[i] {
			return false
		}
	}
	return true
}

func sameImage(a, b *image.RGBA) bool {
	return a.Rect == b.Rect && string(a.Pix) == string(b.Pix)
}

// render returns a copy of the App's current picture.
func render(a *viewer.App) *image.RGBA {
	img, _ := a.Render()
	return cloneRGBA(img)
}

func cloneRGBA(m *image.RGBA) *image.RGBA {
	c := *m
	c.Pix = append([]byte(nil), m.Pix...)
	return &c
}

func decodePNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img
}

// slowLife takes longer than a tick for every step.
type slowLife struct{ *toy.Life }

func (s slowLife) Step() {
	time.Sleep(time.Second / viewer.TicksPerSecond)
	s.Life.Step()
}

func TestSlowStepsAreDroppedNotOwed(t *testing.T) {
	a := viewer.New(slowLife{toy.NewLife(4, 4, 1, 1)}, viewer.Options{Speed: 120})
	a.Layout(640, 400)
	update(t, a, make([]viewer.Tick, 10)...)
	// 120 steps/s is 2 steps a tick, but one step already fills a tick.
	if a.Steps() != 10 {
		t.Errorf("%d steps in 10 ticks of slow steps, want 10 (one a tick)", a.Steps())
	}
}

func TestInitialSpeedRoundsDown(t *testing.T) {
	for _, c := range []struct{ asked, want int }{{0, 10}, {1, 1}, {7, 5}, {60, 60}, {500, 120}} {
		a := viewer.New(toy.NewLife(2, 2, 1, 1), viewer.Options{Speed: c.asked})
		if got := a.Speed(); got != c.want {
			t.Errorf("speed %d became %d, want %d", c.asked, got, c.want)
		}
	}
}

// TestWrongCellsFramed: with Options.Wrong, the cells it reports are framed
// in painter.WrongColour (their centres keep their colour), every other
// cell is exactly the painter's, and the panel's count changes with them.
func TestWrongCellsFramed(t *testing.T) {
	alive := func(f painter.Frame) []bool { // "wrong" = channel 0 on, independent of the App
		w := make([]bool, f.H*f.W)
		for i := range w {
			w[i] = f.Cells[i*f.C] > 0.5
		}
		return w
	}
	a, sim := newApp(t, viewer.Options{Wrong: alive})
	img := cloneRGBA(render(a))
	f := sim.Frame()
	want := painter.Paint(f, painter.Options{Scale: 32})
	g := a.GridRect().Min
	marked := 0
	for y := range f.H {
		for x := range f.W {
			cell := image.Rect(x*32, y*32, (x+1)*32, (y+1)*32)
			if f.At(y, x, 0) > 0.5 {
				marked++
				if c := img.RGBAAt(g.X+cell.Min.X, g.Y+cell.Min.Y); c != painter.WrongColour {
					t.Fatalf("wrong cell (%d,%d): corner %v, want %v", y, x, c, painter.WrongColour)
				}
				if c, w := img.RGBAAt(g.X+cell.Min.X+16, g.Y+cell.Min.Y+16), want.RGBAAt(cell.Min.X+16, cell.Min.Y+16); c != w {
					t.Fatalf("wrong cell (%d,%d): centre %v, want %v", y, x, c, w)
				}
				continue
			}
			assertRegion(t, img, cell.Add(g), want.SubImage(cell))
		}
	}
	if marked == 0 {
		t.Fatal("the toy grid has no live cell: nothing was checked")
	}
	none, _ := newApp(t, viewer.Options{Wrong: func(f painter.Frame) []bool { return make([]bool, f.H*f.W) }})
	panel := image.Rect(a.GridRect().Max.X+8, 0, 640, 400)
	other := render(none)
	same := true
	for y := panel.Min.Y; y < panel.Max.Y; y++ {
		for x := panel.Min.X; x < panel.Max.X; x++ {
			same = same && img.RGBAAt(x, y) == other.RGBAAt(x, y)
		}
	}
	if same {
		t.Error("the panel is the same with no wrong cell as with some")
	}
}
