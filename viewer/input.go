package viewer

import "image"

// Action is a command the user gives with a key.
type Action uint8

// The actions, in the order the help overlay lists them.
const (
	Pause Action = iota + 1
	StepOnce
	Reset
	ToggleHard
	ToggleAsync
	Faster
	Slower
	NextChannel
	ToggleGridLines
	Screenshot
	ToggleHelp
	Quit
)

// Binding ties an action to the key that triggers it.
type Binding struct {
	Action Action
	Key    string // the key's name as ebiten spells it (ebiten.Key.String)
	Label  string // how the help overlay names the key
	Help   string
}

// Bindings is the keymap: the window maps keys to actions with it and the
// help overlay lists it, so the two cannot disagree.
var Bindings = []Binding{
	{Pause, "Space", "Space", "pause / resume"},
	{StepOnce, "N", "N", "one step (pauses)"},
	{Reset, "R", "R", "reset to a new random state"},
	{ToggleHard, "H", "H", "hard (bits) / soft"},
	{ToggleAsync, "A", "A", "sync / async"},
	{Faster, "ArrowUp", "Up", "faster"},
	{Slower, "ArrowDown", "Down", "slower"},
	{NextChannel, "C", "C", "next channel (then RGB)"},
	{ToggleGridLines, "G", "G", "cell grid lines"},
	{Screenshot, "P", "P", "screenshot to PNG"},
	{ToggleHelp, "F1", "F1", "this help"},
	{Quit, "Escape", "Esc", "quit (training keeps its checkpoint)"},
}

// Input is what the App reads from the user once per tick.
type Input interface {
	// Actions returns the actions triggered since the previous tick, in order.
	Actions() []Action
	// Pointer returns the mouse position in screen pixels and whether the
	// main button is held.
	Pointer() (at image.Point, down bool)
}

// Tick is one tick's input, prepared in advance: tests and scripted runs
// pass Ticks to App.Update.
type Tick struct {
	Do   []Action
	At   image.Point
	Down bool
}

// Actions implements Input.
func (t Tick) Actions() []Action { return t.Do }

// Pointer implements Input.
func (t Tick) Pointer() (image.Point, bool) { return t.At, t.Down }
