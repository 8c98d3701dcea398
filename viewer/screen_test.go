package viewer_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"image"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/viewer/internal/toy"
	"github.com/dlca/dlca/viewer/painter"
)

// The screen tests run the real viewer window (viewer/internal/remote, built
// here) on the X display named by DISPLAY, drive it with commands, and read
// its pixels back from the X server with GetImage: what they compare is
// what the window system shows, not what the App meant to draw.

// needDisplay skips t when there is no X server to open windows on.
func needDisplay(t *testing.T) {
	t.Helper()
	if os.Getenv("DISPLAY") == "" {
		t.Skip("viewer: DISPLAY is unset, so the screen tests cannot open a window; run them under Xvfb: xvfb-run -a go test ./viewer/...")
	}
	if testing.Short() {
		t.Skip("viewer: screen tests skipped in -short mode")
	}
}

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// binary returns the path of the named command, built with the other
// (viewer/internal/remote and cmd/dlca-view) once per test run: one go
// build links both at once.
func binary(t *testing.T, name string) string {
	t.Helper()
	buildOnce.Do(func() {
		if binDir, buildErr = os.MkdirTemp("", "dlca-view-test"); buildErr != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", binDir+string(os.PathSeparator),
			"github.com/dlca/dlca/viewer/internal/remote", "github.com/dlca/dlca/cmd/dlca-view").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("building the viewer's commands: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(binDir, name)
}

func remoteBinary(t *testing.T) string { return binary(t, "remote") }

// remoteState mirrors the remote command's State.
type remoteState struct {
	Ticks, Steps int
	Paused       bool
	Grid         image.Rectangle
	View         painter.Options
	Frame        painter.Frame
	Window       image.Point
	Screen       image.Point
	Iter         int
	SoftLoss     float64
	Screenshot   string
}

// session is one running remote viewer.
type session struct {
	t    *testing.T
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Scanner
	done chan struct{} // closed when the process has exited
	err  error         // its exit status, once done is closed
}

func startRemote(t *testing.T, args ...string) *session {
	t.Helper()
	cmd := exec.Command(remoteBinary(t), args...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &session{t: t, cmd: cmd, in: in, out: bufio.NewScanner(out), done: make(chan struct{})}
	s.out.Buffer(nil, 1<<24)
	go func() {
		s.err = cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(func() {
		select {
		case <-s.done:
		default:
			cmd.Process.Kill()
			<-s.done
		}
	})
	return s
}

// send gives one command and decodes its one-line answer into v (if not nil).
func (s *session) send(v any, format string, args ...any) {
	s.t.Helper()
	fmt.Fprintf(s.in, format+"\n", args...)
	if !s.out.Scan() {
		s.t.Fatalf("remote viewer gave no answer to %q: %v", fmt.Sprintf(format, args...), s.out.Err())
	}
	var e struct{ Error string }
	if json.Unmarshal(s.out.Bytes(), &e); e.Error != "" {
		s.t.Fatalf("remote viewer: %s", e.Error)
	}
	if v != nil {
		if err := json.Unmarshal(s.out.Bytes(), v); err != nil {
			s.t.Fatalf("decoding %q: %v", s.out.Text(), err)
		}
	}
}

func (s *session) state() remoteState {
	s.t.Helper()
	var st remoteState
	s.send(&st, "state")
	return st
}

// quit asks the viewer to quit and waits for it to exit cleanly.
func (s *session) quit() {
	s.t.Helper()
	fmt.Fprintln(s.in, "quit")
	select {
	case <-s.done:
		if s.err != nil {
			s.t.Errorf("remote viewer exited with %v", s.err)
		}
	case <-time.After(10 * time.Second):
		s.t.Error("remote viewer did not exit within 10 s of quit")
	}
}

// closeWindow asks the window titled title to close as a window manager
// does: a WM_PROTOCOLS client message carrying WM_DELETE_WINDOW.
func closeWindow(title string) error {
	c, err := xgb.NewConn()
	if err != nil {
		return err
	}
	defer c.Close()
	root := xproto.Setup(c).DefaultScreen(c).Root
	tree, err := xproto.QueryTree(c, root).Reply()
	if err != nil {
		return err
	}
	atom := func(name string) (xproto.Atom, error) {
		r, err := xproto.InternAtom(c, false, uint16(len(name)), name).Reply()
		if err != nil {
			return 0, err
		}
		return r.Atom, nil
	}
	protocols, err := atom("WM_PROTOCOLS")
	if err != nil {
		return err
	}
	del, err := atom("WM_DELETE_WINDOW")
	if err != nil {
		return err
	}
	for _, w := range tree.Children {
		name, err := xproto.GetProperty(c, false, w, xproto.AtomWmName, xproto.GetPropertyTypeAny, 0, 256).Reply()
		if err != nil || string(name.Value) != title {
			continue
		}
		ev := xproto.ClientMessageEvent{Format: 32, Window: w, Type: protocols,
			Data: xproto.ClientMessageDataUnionData32New([]uint32{uint32(del), 0, 0, 0, 0})}
		return xproto.SendEventChecked(c, false, w, xproto.EventMaskNoEvent, string(ev.Bytes())).Check()
	}
	return fmt.Errorf("no window titled %q among the %d top-level windows", title, len(tree.Children))
}

// grabScreen reads rectangle r of the X screen's root window.
func grabScreen(r image.Rectangle) (*image.RGBA, error) {
	c, err := xgb.NewConn()
	if err != nil {
		return nil, err
	}
	defer c.Close()
	setup := xproto.Setup(c)
	scr := setup.DefaultScreen(c)
	if setup.ImageByteOrder != xproto.ImageOrderLSBFirst || scr.RootDepth != 24 {
		return nil, fmt.Errorf("screen depth %d, byte order %d: want a 24-bit LSB-first screen (Xvfb's default)", scr.RootDepth, setup.ImageByteOrder)
	}
	rep, err := xproto.GetImage(c, xproto.ImageFormatZPixmap, xproto.Drawable(scr.Root),
		int16(r.Min.X), int16(r.Min.Y), uint16(r.Dx()), uint16(r.Dy()), 0xffffffff).Reply()
	if err != nil {
		return nil, err
	}
	if len(rep.Data) != 4*r.Dx()*r.Dy() {
		return nil, fmt.Errorf("GetImage gave %d bytes for %v, want 32 bits per pixel", len(rep.Data), r)
	}
	img := image.NewRGBA(image.Rectangle{Max: r.Size()})
	for i := 0; i < len(rep.Data); i += 4 { // pixels are B, G, R, pad
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = rep.Data[i+2], rep.Data[i+1], rep.Data[i], 255
	}
	return img, nil
}

// screenOf returns the viewer's picture as the X server shows it.
func screenOf(t *testing.T, st remoteState) *image.RGBA {
	t.Helper()
	img, err := grabScreen(image.Rectangle{Min: st.Window, Max: st.Window.Add(st.Screen)})
	if err != nil {
		t.Fatalf("reading the screen: %v", err)
	}
	return img
}

// expectGridOnScreen waits (the window system presents frames
// asynchronously) until the grid on the screen equals the painter's picture
// of st's state, and fails with the first differing pixel if it never does.
func expectGridOnScreen(t *testing.T, st remoteState) {
	t.Helper()
	want := painter.Paint(st.Frame, st.View)
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := screenOf(t, st)
		if diff := firstDiff(got, st.Grid, want); diff == "" {
			return
		} else if time.Now().After(deadline) {
			t.Fatalf("grid on the screen differs from the painter's picture: %s", diff)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// firstDiff describes the first pixel of img in r that differs from want.
func firstDiff(img *image.RGBA, r image.Rectangle, want *image.RGBA) string {
	if r.Size() != want.Rect.Size() || !r.In(img.Rect) {
		return fmt.Sprintf("grid %v does not fit a %v picture of %v", r, want.Rect.Size(), img.Rect)
	}
	for y := 0; y < r.Dy(); y++ {
		for x := 0; x < r.Dx(); x++ {
			if g, w := img.RGBAAt(r.Min.X+x, r.Min.Y+y), want.RGBAAt(x, y); g != w {
				return fmt.Sprintf("pixel (%d,%d) is %v, want %v", r.Min.X+x, r.Min.Y+y, g, w)
			}
		}
	}
	return ""
}

func TestScreenShowsThePainterPicture(t *testing.T) {
	needDisplay(t)
	shots := t.TempDir()
	s := startRemote(t, "-rows", "12", "-cols", "10", "-channels", "3", "-shots", shots)
	s.send(nil, "tick 5")
	st := s.state()
	ref := toy.NewLife(12, 10, 3, 7) // the remote's automaton: same seed, same start
	ref.Reset()
	assertFrame(t, st.Frame, ref.Frame())
	expectGridOnScreen(t, st)

	t.Run("step advances exactly one step", func(t *testing.T) {
		s.send(nil, "key N")
		s.send(nil, "tick 10")
		got := s.state()
		ref.Step()
		if got.Steps != st.Steps+1 {
			t.Errorf("%d steps after one step key, want %d", got.Steps, st.Steps+1)
		}
		assertFrame(t, got.Frame, ref.Frame())
		expectGridOnScreen(t, got)
		st = got
	})

	t.Run("pause stops time", func(t *testing.T) {
		if !st.Paused {
			t.Fatal("the remote viewer should start paused")
		}
		s.send(nil, "tick 60")
		got := s.state()
		if got.Steps != st.Steps || got.Ticks < st.Ticks+60 {
			t.Errorf("60 paused ticks: steps %d -> %d, ticks %d -> %d", st.Steps, got.Steps, st.Ticks, got.Ticks)
		}
		assertFrame(t, got.Frame, st.Frame)
		s.send(nil, "key Space") // run at 60 steps/s
		s.send(nil, "tick 20")
		s.send(nil, "key Space")
		got = s.state()
		if got.Steps < st.Steps+20 {
			t.Errorf("running 20 ticks at 60 steps/s: %d steps, want at least %d", got.Steps, st.Steps+20)
		}
		s.send(nil, "tick 30")
		still := s.state()
		if still.Steps != got.Steps {
			t.Errorf("paused again, yet steps went %d -> %d", got.Steps, still.Steps)
		}
		expectGridOnScreen(t, still)
		st = still
	})

	t.Run("wipe changes only where the mouse went", func(t *testing.T) {
		scale := st.View.Scale
		at := func(col, row int) image.Point {
			return st.Grid.Min.Add(image.Pt(col*scale+scale/2, row*scale+scale/2))
		}
		p, q := at(2, 5), at(7, 5)
		s.send(nil, "mouse %d %d 1", p.X, p.Y)
		s.send(nil, "mouse %d %d 1", q.X, q.Y)
		s.send(nil, "mouse %d %d 0", q.X, q.Y)
		got := s.state()
		wiped := image.Rect(1, 4, 9, 7) // the 3-cell brush along row 5, columns 2..7
		for y := 0; y < got.Frame.H; y++ {
			for x := 0; x < got.Frame.W; x++ {
				for c := 0; c < got.Frame.C; c++ {
					v, was := got.Frame.At(y, x, c), st.Frame.At(y, x, c)
					if in := image.Pt(x, y).In(wiped); (in && v != 0) || (!in && v != was) {
						t.Errorf("cell (%d,%d) channel %d: %v -> %v (wiped area %v)", x, y, c, was, v, wiped)
					}
				}
			}
		}
		expectGridOnScreen(t, got)
	})

	t.Run("resizing rescales the grid", func(t *testing.T) {
		s.send(nil, "size 900 500")
		var got remoteState
		for deadline := time.Now().Add(5 * time.Second); got.Screen.X != 900 && time.Now().Before(deadline); {
			s.send(nil, "tick 5")
			got = s.state()
		}
		// 900 - 288 - 16 = 596 px across 10 columns, 500 - 16 = 484 px down 12 rows.
		if got.Screen != image.Pt(900, 500) || got.View.Scale != min(596/10, 484/12) {
			t.Fatalf("after resizing to 900x500: screen %v, scale %d", got.Screen, got.View.Scale)
		}
		expectGridOnScreen(t, got)
	})

	t.Run("screenshot key writes the screen", func(t *testing.T) {
		s.send(nil, "tick 10")
		before := s.state()
		expectGridOnScreen(t, before)
		shown := screenOf(t, before)
		s.send(nil, "key P")
		s.send(nil, "tick 2")
		got := s.state()
		if got.Screenshot == "" {
			t.Fatal("no screenshot written")
		}
		png := decodePNG(t, got.Screenshot)
		assertRegion(t, png, png.Bounds(), shown)
	})
	s.quit()
}

func TestScreenShowsADlcaModel(t *testing.T) {
	needDisplay(t)
	m := tinyModel(t)
	path := filepath.Join(t.TempDir(), "tiny.json")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	s := startRemote(t, "-model", path, "-rows", "9", "-cols", "11")
	s.send(nil, "tick 5")
	st := s.state()
	if f := st.Frame; f.H != 9 || f.W != 11 || f.C != 2 {
		t.Fatalf("remote shows a %dx%dx%d grid, want 9x11x2", f.H, f.W, f.C)
	}
	expectGridOnScreen(t, st)
	for _, key := range []string{"H", "N", "C"} { // hard mode, one step, channel 1
		s.send(nil, "key %s", key)
	}
	s.send(nil, "tick 5")
	got := s.state()
	prev := autograd.New(st.Frame.Cells, 1, 9, 11, 2)
	want := m.Circuit().Rollout(dlca.BitsOf(prev), 1, dlca.HardOptions{}).Tensor(autograd.Float32).Data32()
	for i, v := range want {
		if got.Frame.Cells[i] != v {
			t.Fatalf("after one hard step value %d = %v, the circuit says %v", i, got.Frame.Cells[i], v)
		}
	}
	if got.View.Channel != 1 {
		t.Errorf("showing channel %d after C, want 1", got.View.Channel)
	}
	expectGridOnScreen(t, got)
	s.quit()
}

func TestScreenLiveTraining(t *testing.T) {
	needDisplay(t)
	s := startRemote(t, "-live", "-rows", "8", "-cols", "8", "-channels", "1")
	var seen []remoteState
	var panels []*image.RGBA
	deadline := time.Now().Add(10 * time.Second)
	for len(seen) < 3 && time.Now().Before(deadline) {
		s.send(nil, "tick 15")
		st := s.state()
		if st.Iter == 0 || (len(seen) > 0 && st.Iter == seen[len(seen)-1].Iter) {
			continue
		}
		seen = append(seen, st)
		// The side panel shows the iteration and losses.
		panel := image.Rect(st.Screen.X-288, 0, st.Screen.X, st.Screen.Y)
		panels = append(panels, screenOf(t, st).SubImage(panel).(*image.RGBA))
	}
	if len(seen) < 3 {
		t.Fatalf("saw %d distinct iterations in 10 s", len(seen))
	}
	for i := 1; i < len(seen); i++ {
		a, b := seen[i-1], seen[i]
		if b.Iter <= a.Iter || b.SoftLoss >= a.SoftLoss || b.Ticks <= a.Ticks {
			t.Errorf("iteration %d loss %v tick %d, then iteration %d loss %v tick %d", a.Iter, a.SoftLoss, a.Ticks, b.Iter, b.SoftLoss, b.Ticks)
		}
	}
	if samePixels(panels[0], panels[len(panels)-1]) {
		t.Error("the panel on the screen did not change while training advanced")
	}
	s.quit()
}

func samePixels(a, b *image.RGBA) bool {
	if a.Rect.Size() != b.Rect.Size() {
		return false
	}
	for y := 0; y < a.Rect.Dy(); y++ {
		for x := 0; x < a.Rect.Dx(); x++ {
			if a.RGBAAt(a.Rect.Min.X+x, a.Rect.Min.Y+y) != b.RGBAAt(b.Rect.Min.X+x, b.Rect.Min.Y+y) {
				return false
			}
		}
	}
	return true
}

func TestScreenClosingTheWindowKeepsTheCheckpoint(t *testing.T) {
	needDisplay(t)
	dir := t.TempDir()
	title := fmt.Sprintf("dlca-view-close-test-%d", os.Getpid())
	s := startRemote(t, "-train-tiny", dir, "-title", title)
	var st remoteState
	for deadline := time.Now().Add(20 * time.Second); st.Iter < 5 && time.Now().Before(deadline); {
		s.send(nil, "tick 10")
		st = s.state()
	}
	if st.Iter < 5 {
		t.Fatalf("training reached iteration %d in 20 s", st.Iter)
	}
	if err := closeWindow(title); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.done:
		if s.err != nil {
			t.Fatalf("the viewer exited with %v after its window was closed", s.err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the viewer did not exit within 20 s of its window being closed")
	}
	ck, err := bptt.LoadCheckpoint(filepath.Join(dir, "checkpoint.json"))
	if err != nil {
		t.Fatal(err)
	}
	if ck.Iteration < st.Iter || len(ck.Metrics) != ck.Iteration {
		t.Errorf("checkpoint at iteration %d with %d metrics; the screen showed iteration %d", ck.Iteration, len(ck.Metrics), st.Iter)
	}
	if _, err := dlca.Load(filepath.Join(dir, "model.json")); err != nil {
		t.Error(err)
	}
}

func TestWithoutDisplayTheViewerSaysWhatToDo(t *testing.T) {
	if testing.Short() {
		t.Skip("viewer: builds the remote viewer; skipped in -short mode")
	}
	cmd := exec.Command(remoteBinary(t))
	cmd.Env = append(os.Environ(), "DISPLAY=")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit %v, want status 1; output:\n%s", err, out)
	}
	if !strings.Contains(string(out), "no display: DISPLAY is unset") || strings.Contains(string(out), "panic") {
		t.Errorf("output %q, want the no-display message and no panic", out)
	}
}
