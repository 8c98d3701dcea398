// Command remote is the viewer under remote control, for tests that need a
// real screen: it opens the window on a toy automaton, a saved dlca model
// (-model), a toy training run (-live) or a real one of a tiny model
// (-train-tiny), and obeys one command per line on standard input, answering each
// with one line of JSON on standard output once the command has taken
// effect. It is built and run by the viewer's screen tests.
//
// Commands:
//
//	tick N          let N ticks pass with the current input
//	key NAME        press a key for one tick (NAME as in viewer.Bindings: Space, N, P, ...)
//	mouse X Y DOWN  move the pointer to screen pixel (X, Y), button held if DOWN is 1
//	size W H        resize the window to W x H
//	state           report the App's state (see State)
//	quit            quit as the Escape key does
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hajimehoshi/ebiten/v2"

	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/viewer"
	"github.com/dlca/dlca/viewer/internal/toy"
	"github.com/dlca/dlca/viewer/painter"
	"github.com/dlca/dlca/viewer/window"
)

// State is the answer to "state"; every other command answers {"ok": true}
// or {"error": "..."}.
type State struct {
	Ticks, Steps int
	Paused       bool
	Grid         image.Rectangle // where the grid is on the screen
	View         painter.Options
	Frame        painter.Frame
	Window       image.Point // the window's top-left corner on the X screen
	Screen       image.Point // the App's picture size
	Iter         int
	SoftLoss     float64
	Screenshot   string
}

func main() {
	rows := flag.Int("rows", 12, "grid rows")
	cols := flag.Int("cols", 10, "grid columns")
	channels := flag.Int("channels", 3, "channels")
	live := flag.Bool("live", false, "show a toy training run instead of a fixed automaton")
	model := flag.String("model", "", "show this dlca model file (seed 7) instead of the toy automaton")
	train := flag.String("train-tiny", "", "train a tiny dlca model, keeping its checkpoint in this folder")
	shots := flag.String("shots", os.TempDir(), "screenshot folder")
	title := flag.String("title", "remote", "window title")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "remote: unexpected argument %q (flags only)\n", flag.Arg(0))
		os.Exit(2)
	}

	opt := viewer.Options{Paused: !*live, Brush: 3, ScreenshotDir: *shots, Speed: 60, RolloutSteps: 5}
	var a *viewer.App
	var err error
	switch {
	case *train != "":
		a, err = tinyTraining(*train, opt)
	case *live:
		a = viewer.NewLive(context.Background(), &toy.Trainer{Iters: 1 << 30, Pause: 20 * time.Millisecond, H: *rows, W: *cols, C: *channels}, opt)
	case *model != "":
		var m *dlca.Model
		if m, err = dlca.Load(*model); err == nil {
			a = viewer.New(viewer.NewModelSim(m, *rows, *cols, nil, 7), opt)
		}
	default:
		a = viewer.New(toy.NewLife(*rows, *cols, *channels, 7), opt)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	r := &remote{lines: make(chan string), out: json.NewEncoder(os.Stdout)}
	go r.read(os.Stdin)
	err = window.Run(a, window.Config{Title: *title, Width: 640, Height: 400, Position: &image.Point{X: 20, Y: 30}, Script: r.tick})
	a.Wait()
	if _, terr, _ := a.Training(); terr != nil {
		err = errors.Join(err, terr)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// remote turns command lines into ticks of input.
type remote struct {
	lines    chan string
	out      *json.Encoder
	at       image.Point
	down     bool
	wait     int  // ticks left of a "tick N"
	replyDue bool // the command of the previous tick is done: answer it
}

func (r *remote) read(f *os.File) {
	s := bufio.NewScanner(f)
	for s.Scan() {
		r.lines <- s.Text()
	}
	close(r.lines)
}

// tick runs at the start of every tick, so a command given in the previous
// tick has been applied by Update when it is answered here.
func (r *remote) tick(a *viewer.App) viewer.Input {
	in := viewer.Tick{At: r.at, Down: r.down}
	if r.replyDue && r.wait == 0 {
		r.replyDue = false
		r.out.Encode(map[string]bool{"ok": true})
	}
	if r.wait > 0 {
		r.wait--
		return in
	}
	select {
	case line, ok := <-r.lines:
		if !ok {
			a.Quit()
			return in
		}
		return r.run(a, strings.Fields(line), in)
	default:
		return in
	}
}

func (r *remote) run(a *viewer.App, cmd []string, in viewer.Tick) viewer.Input {
	fail := func(format string, args ...any) viewer.Input {
		r.out.Encode(map[string]string{"error": fmt.Sprintf(format, args...)})
		return in
	}
	if len(cmd) == 0 {
		return fail("empty command")
	}
	switch cmd[0] {
	case "tick":
		n, err := strconv.Atoi(arg(cmd, 1))
		if err != nil || n < 1 {
			return fail("tick wants a positive count")
		}
		r.wait, r.replyDue = n-1, true
	case "key":
		act, ok := action(arg(cmd, 1))
		if !ok {
			return fail("no key %q", arg(cmd, 1))
		}
		in.Do, r.replyDue = []viewer.Action{act}, true
	case "mouse":
		x, errX := strconv.Atoi(arg(cmd, 1))
		y, errY := strconv.Atoi(arg(cmd, 2))
		if errX != nil || errY != nil {
			return fail("mouse wants X Y DOWN")
		}
		r.at, r.down = image.Pt(x, y), arg(cmd, 3) == "1"
		in.At, in.Down, r.replyDue = r.at, r.down, true
	case "size":
		w, errW := strconv.Atoi(arg(cmd, 1))
		h, errH := strconv.Atoi(arg(cmd, 2))
		if errW != nil || errH != nil || w < 1 || h < 1 {
			return fail("size wants W H")
		}
		ebiten.SetWindowSize(w, h)
		r.replyDue = true
	case "state":
		r.out.Encode(state(a))
	case "quit":
		a.Quit()
		r.replyDue = true
	default:
		return fail("unknown command %q", cmd[0])
	}
	return in
}

func state(a *viewer.App) State {
	p, _, _ := a.Training()
	shot, _ := a.Screenshot()
	x, y := ebiten.WindowPosition()
	return State{
		Ticks: a.Ticks(), Steps: a.Steps(), Paused: a.Paused(),
		Grid: a.GridRect(), View: a.View(), Frame: a.Frame(),
		Window: image.Pt(x, y), Screen: a.Size(),
		Iter: p.Iter, SoftLoss: p.SoftLoss, Screenshot: shot,
	}
}

func action(key string) (viewer.Action, bool) {
	for _, b := range viewer.Bindings {
		if b.Key == key {
			return b.Action, true
		}
	}
	return 0, false
}

func arg(cmd []string, i int) string {
	if i < len(cmd) {
		return cmd[i]
	}
	return ""
}
