package window

import (
	"errors"
	"fmt"
	"image"

	"github.com/hajimehoshi/ebiten/v2"

	"github.com/dlca/dlca/viewer"
	// NOTE: initialised before ebiten, it replaces ebiten's panic when
	// there is no display with a message.
	_ "github.com/dlca/dlca/viewer/window/internal/needdisplay"
)

// Config configures the window. The zero value opens a 960x640 window.
type Config struct {
	Title         string
	Width, Height int // initial window size in device-independent pixels
	// Position, when not nil, places the window's top-left corner there.
	Position *image.Point
	// ScreenshotAfter, when positive, writes the screen to ScreenshotPath
	// that many ticks after the App has settled (at once when replaying,
	// when training has ended when live) and then quits: pictures for
	// documentation.
	ScreenshotAfter int
	ScreenshotPath  string
	// Stop, when closed, quits as closing the window does (a signal, say).
	Stop <-chan struct{}
	// Script, when not nil, is called at the start of every tick and its
	// result replaces the keyboard and mouse (scripted runs).
	Script func(a *viewer.App) viewer.Input
}

// Run opens the window and runs a until the user quits or closes the
// window. Closing the window asks the App to quit, which stops a training
// run and keeps its checkpoint; Run returns once that is done. Run must be
// called from the main goroutine.
func Run(a *viewer.App, cfg Config) error {
	if cfg.Width <= 0 || cfg.Height <= 0 {
		cfg.Width, cfg.Height = 960, 640
	}
	if cfg.ScreenshotAfter > 0 && cfg.ScreenshotPath == "" {
		return errors.New("window: a screenshot tick was given without a screenshot path")
	}
	ebiten.SetWindowTitle(cfg.Title)
	ebiten.SetWindowSize(cfg.Width, cfg.Height)
	if cfg.Position != nil {
		ebiten.SetWindowPosition(cfg.Position.X, cfg.Position.Y)
	}
	ebiten.SetWindowResizingMode(ebiten.WindowResizingModeEnabled)
	ebiten.SetWindowClosingHandled(true)
	ebiten.SetScreenClearedEveryFrame(false) // the App redraws only what changed
	ebiten.SetTPS(viewer.TicksPerSecond)
	g := &game{app: a, cfg: cfg, input: newDevices(), uploaded: -1}
	err := ebiten.RunGame(g)
	if err != nil && !errors.Is(err, viewer.ErrQuit) {
		return fmt.Errorf("window: %w", err)
	}
	if cfg.ScreenshotAfter > 0 {
		if path, err := a.Screenshot(); err != nil || path != cfg.ScreenshotPath {
			return fmt.Errorf("window: no screenshot written to %s (%v)", cfg.ScreenshotPath, err)
		}
	}
	return nil
}

// game adapts an App to ebiten.Game.
type game struct {
	app       *viewer.App
	cfg       Config
	input     *devices
	uploaded  int // the App's picture version on the screen, -1 after a resize
	shotAsked bool
	// settledTicks counts the ticks since the App settled.
	settledTicks int
}

func (g *game) Update() error {
	if ebiten.IsWindowBeingClosed() || closed(g.cfg.Stop) {
		g.app.Quit()
	}
	if g.cfg.ScreenshotAfter > 0 {
		g.screenshotThenQuit()
	}
	var in viewer.Input = g.input
	if g.cfg.Script != nil {
		in = g.cfg.Script(g.app)
	}
	return g.app.Update(in)
}

func (g *game) screenshotThenQuit() {
	if path, _ := g.app.Screenshot(); path == g.cfg.ScreenshotPath {
		g.app.Quit()
		return
	}
	if g.app.Settled() {
		g.settledTicks++
	}
	if !g.shotAsked && g.settledTicks >= g.cfg.ScreenshotAfter {
		g.app.RequestScreenshot(g.cfg.ScreenshotPath)
		g.shotAsked = true
	}
}

func (g *game) Draw(screen *ebiten.Image) {
	img, version := g.app.Render()
	if version == g.uploaded && screen.Bounds().Size() == img.Rect.Size() {
		return
	}
	if screen.Bounds().Size() != img.Rect.Size() {
		return // a resize is under way; the next Layout brings the sizes together
	}
	screen.WritePixels(img.Pix)
	g.uploaded = version
}

// Layout gives the App the window size in device pixels, so that one App
// pixel is one screen pixel and cells stay sharp on high-density screens.
func (g *game) Layout(w, h int) (int, int) {
	s := ebiten.Monitor().DeviceScaleFactor()
	w, h = int(float64(w)*s), int(float64(h)*s)
	g.app.Layout(w, h)
	return w, h
}

// closed reports whether c is closed; a nil channel never is.
func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
