package viewer

import (
	"errors"
	"image"
	"time"

	"github.com/dlca/dlca/viewer/painter"
)

// TicksPerSecond is the number of Update calls per second the App assumes
// (ebiten's default tick rate).
const TicksPerSecond = 60

// speeds are the selectable speeds in steps per second.
var speeds = []int{1, 2, 5, 10, 20, 30, 60, 120}

// ErrQuit is returned by Update once the App has finished: the user asked to
// quit and any training run has stopped and kept its checkpoint.
var ErrQuit = errors.New("viewer: quit")

// Options configure an App. The zero value is usable.
type Options struct {
	Title  string // first line of the side panel
	Speed  int    // initial steps per second, rounded down to one of 1, 2, 5, 10, 20, 30, 60, 120; 0 means 10
	Mode   Mode   // initial mode
	Paused bool   // start paused
	// View is the initial painting: channel, RGB, grid lines (Scale is
	// chosen by the App to fit the window).
	View painter.Options
	// Brush is the side in cells of the square the mouse wipes; 0 means 3.
	Brush int
	// RolloutSteps is, during live training, how many steps a model's
	// rollout runs before the App switches to a newer model; 0 means 20.
	RolloutSteps int
	// History holds, for a live run resumed from a checkpoint, the losses
	// of the iterations done before, so the loss curve starts at iteration 1.
	History []Losses
	// ScreenshotDir is where the screenshot key writes dlca-view-NNN.png;
	// "" means the working directory.
	ScreenshotDir string
	// Wrong, when not nil, compares a state with the target: it returns,
	// for every cell in row-major order, whether the cell differs from it
	// (nil: no target for this state). The App frames those cells in
	// painter.WrongColour and shows their count in the panel.
	Wrong func(painter.Frame) []bool
}

// App is the viewer's state. Its methods must be called from one goroutine
// (the window's), except where a method says otherwise.
type App struct {
	opt    Options
	sim    Simulator
	mode   Mode
	paused bool
	speed  int // index into speeds
	acc    int // step accumulator, in steps*ticks
	steps  int // steps since the last reset
	ticks  int
	view   painter.Options
	help   bool

	size     image.Point     // screen size in pixels
	gridRect image.Rectangle // where the grid is drawn
	scale    int             // pixels per cell side

	dragging bool
	lastCell image.Point

	live     *liveRun // nil when replaying
	stats    liveStats
	quitting bool

	shots   shooter
	message string

	frame      *image.RGBA
	shownWrong []bool // the cells of the shown state that differ from the target (Options.Wrong)
	version    int    // bumped by every change that alters the picture
	drawn      int    // version of frame
}

// New returns an App that shows sim (replay of a saved model).
func New(sim Simulator, opt Options) *App {
	a := newApp(opt)
	a.adopt(sim)
	return a
}

func newApp(opt Options) *App {
	if opt.Brush < 1 {
		opt.Brush = 3
	}
	if opt.RolloutSteps < 1 {
		opt.RolloutSteps = 20
	}
	if opt.Speed == 0 {
		opt.Speed = 10
	}
	a := &App{opt: opt, mode: opt.Mode, paused: opt.Paused, view: opt.View, drawn: -1}
	for i, s := range speeds {
		if s <= opt.Speed {
			a.speed = i
		}
	}
	a.view.Scale = 1
	a.shots.dir = opt.ScreenshotDir
	return a
}

// adopt makes sim the shown automaton, in the current mode, from a fresh state.
func (a *App) adopt(sim Simulator) {
	a.sim = sim
	sim.SetMode(a.mode)
	sim.Reset()
	a.steps, a.acc = 0, 0
	if f := sim.Frame(); !a.view.RGB && a.view.Channel >= f.C {
		a.view.Channel = 0
	}
	a.relayout()
	a.version++
}

// Layout sets the screen size in pixels; the grid is scaled by the largest
// whole factor that fits beside the side panel.
func (a *App) Layout(width, height int) {
	if p := image.Pt(width, height); p != a.size {
		a.size = p
		a.relayout()
		a.version++
	}
}

// Update runs one tick: takes news from a training run, applies the user's
// input, and advances time. It returns ErrQuit once the App has finished.
func (a *App) Update(in Input) error {
	a.ticks++
	if a.live != nil {
		a.pollLive()
	}
	if a.quitting && (a.live == nil || a.live.finished()) {
		return ErrQuit
	}
	for _, act := range in.Actions() {
		a.do(act)
	}
	a.wipeAlong(in.Pointer())
	if a.sim != nil && !a.paused {
		a.advance()
	}
	return nil
}

// advance runs the steps due in this tick.
//
// NOTE: when steps are slower than ticks (a soft model on a large grid), the
// steps not done within one tick's time are dropped rather than owed, so the
// App runs as fast as the CPU allows instead of falling ever further behind
// and stalling the window.
func (a *App) advance() {
	start := time.Now()
	a.acc += speeds[a.speed]
	for a.acc >= TicksPerSecond {
		a.acc -= TicksPerSecond
		a.step()
		if time.Since(start) > time.Second/TicksPerSecond {
			a.acc = 0
			return
		}
	}
}

func (a *App) step() {
	a.sim.Step()
	a.steps++
	a.version++
}

// do applies one action.
func (a *App) do(act Action) {
	a.version++
	switch act {
	case Pause:
		a.paused = !a.paused
	case StepOnce:
		a.paused = true
		if a.sim != nil {
			a.step()
		}
	case Reset:
		if a.sim != nil {
			a.sim.Reset()
			a.steps, a.acc = 0, 0
		}
	case ToggleHard:
		a.mode.Hard = !a.mode.Hard
		a.setMode()
	case ToggleAsync:
		a.mode.Async = !a.mode.Async
		a.setMode()
	case Faster:
		a.speed = min(a.speed+1, len(speeds)-1)
	case Slower:
		a.speed = max(a.speed-1, 0)
	case NextChannel:
		a.nextChannel()
	case ToggleGridLines:
		a.view.GridLines = !a.view.GridLines
	case Screenshot:
		a.shots.request("")
	case ToggleHelp:
		a.help = !a.help
	case Quit:
		a.Quit()
	}
}

func (a *App) setMode() {
	if a.sim != nil {
		a.sim.SetMode(a.mode)
	}
}

// nextChannel cycles channel 0, 1, ..., C-1, then RGB when C >= 3.
func (a *App) nextChannel() {
	if a.sim == nil {
		return
	}
	c := a.sim.Frame().C
	switch {
	case a.view.RGB:
		a.view.RGB, a.view.Channel = false, 0
	case a.view.Channel+1 < c:
		a.view.Channel++
	case c >= 3:
		a.view.RGB = true
	default:
		a.view.Channel = 0
	}
}

// Quit asks the App to finish: a training run is stopped (it keeps its
// checkpoint) and Update returns ErrQuit once it has.
func (a *App) Quit() {
	if a.quitting {
		return
	}
	a.quitting = true
	a.message = "stopping..."
	if a.live != nil {
		a.message = "stopping training, saving the checkpoint..."
		a.live.stop()
	}
	a.version++
}

// RequestScreenshot makes the next Render write the screen to path
// (or to a numbered file in Options.ScreenshotDir when path is "").
func (a *App) RequestScreenshot(path string) { a.shots.request(path) }

// Screenshot returns the path of the last screenshot written and the error
// of the last attempt.
func (a *App) Screenshot() (string, error) { return a.shots.last, a.shots.err }

// Frame returns the shown state; nil simulator gives an empty frame.
func (a *App) Frame() painter.Frame {
	if a.sim == nil {
		return painter.Frame{C: 1}
	}
	return a.sim.Frame()
}

// Steps returns the number of steps since the last reset.
func (a *App) Steps() int { return a.steps }

// Ticks returns the number of Update calls so far.
func (a *App) Ticks() int { return a.ticks }

// Paused reports whether time is stopped.
func (a *App) Paused() bool { return a.paused }

// Mode returns the current stepping mode.
func (a *App) Mode() Mode { return a.mode }

// View returns how the grid is painted, Scale included.
func (a *App) View() painter.Options { return a.view }

// GridRect returns where the grid is drawn on the screen.
func (a *App) GridRect() image.Rectangle { return a.gridRect }

// Speed returns the speed in steps per second.
func (a *App) Speed() int { return speeds[a.speed] }

// Size returns the screen size given to Layout.
func (a *App) Size() image.Point { return a.size }
