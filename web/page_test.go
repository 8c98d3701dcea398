package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/viewer/painter"
)

// learned reads one of circuit's learned netlists (see circuit/learned_test.go):
// "checkerboard" (8 channels, trained with zero boundaries) or "life" (1
// channel, periodic).
func learned(t testing.TB, name string) *circuit.Netlist {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "circuit", "testdata", name+".netlist.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	nl, err := circuit.ReadNetlist(f)
	if err != nil {
		t.Fatal(err)
	}
	return nl
}

// randomGrid returns an h x w x c grid of random bits.
func randomGrid(h, w, c int, seed uint64) *circuit.Grid {
	g := circuit.NewGrid(h, w, c)
	g.Randomize(rand.New(rand.NewPCG(seed, 0)))
	return g
}

// ints turns bits into a JSON array literal (json.Marshal would write a
// []uint8 as base64).
func ints(bits []uint8) string {
	v := make([]int, len(bits))
	for i, b := range bits {
		v[i] = int(b)
	}
	s, _ := json.Marshal(v)
	return string(s)
}

// pageCells reads the page's grid back as an h x w x c circuit.Grid.
func pageCells(t testing.TB, ctx context.Context, h, w, c int) *circuit.Grid {
	t.Helper()
	ints := eval[[]int](t, ctx, "dlca.cells()")
	bits := make([]uint8, len(ints))
	for i, v := range ints {
		bits[i] = uint8(v)
	}
	if len(bits) != h*w*c {
		t.Fatalf("the page holds %d cell values, want %d (%dx%dx%d)", len(bits), h*w*c, h, w, c)
	}
	return circuit.FromCells(h, w, c, bits)
}

// firstDiff describes the first cell where two grids differ.
func firstDiff(a, b *circuit.Grid) string {
	for y := range a.H {
		for x := range a.W {
			for ch := range a.C {
				if a.Get(y, x, ch) != b.Get(y, x, ch) {
					return fmt.Sprintf("cell (%d, %d) channel %d: page %d, Go %d", y, x, ch, a.Get(y, x, ch), b.Get(y, x, ch))
				}
			}
		}
	}
	return "no difference"
}

// The page's steps are circuit.Sim's cell for cell: both learned rules,
// both boundaries, synchronous and asynchronous (the page draws
// circuit.FireMask's masks), on a grid whose rows span several 32- and
// 64-bit words with a partial last word.
func TestPageStepsMatchSim(t *testing.T) {
	const h, w, steps, fireRate, seed = 13, 70, 12, 0.6, 99
	for _, name := range []string{"checkerboard", "life"} {
		nl := learned(t, name)
		for _, b := range []circuit.Boundary{circuit.Zero, circuit.Periodic} {
			t.Run(fmt.Sprintf("%s/%v", name, b), func(t *testing.T) {
				p := &Page{Name: name, Netlist: nl, Boundary: b, FireRate: fireRate, Seed: seed, Sizes: []Size{{H: 16, W: 16}}}
				ctx := openPage(t, p)
				eval[any](t, ctx, "dlca.setPlaying(false)")
				sim := circuit.NewSim(nl, b, 1)
				init := randomGrid(h, w, nl.Channels(), 3)
				for _, async := range []bool{false, true} {
					a, next := init.Clone(), circuit.NewGrid(h, w, nl.Channels())
					for step := range steps {
						if async {
							sim.StepAsync(next, a, fireRate, seed, step)
						} else {
							sim.Step(next, a)
						}
						a, next = next, a
					}
					eval[any](t, ctx, fmt.Sprintf("dlca.setAsync(%v); dlca.load(%d, %d, %s); dlca.run(%d)", async, h, w, ints(init.Unpack()), steps))
					if got := pageCells(t, ctx, h, w, nl.Channels()); !got.Equal(a) {
						t.Errorf("async=%v: after %d steps the page's grid differs from circuit.Sim's: %s", async, steps, firstDiff(got, a))
					}
					if a.Equal(init) {
						t.Fatalf("async=%v: the rule left the grid unchanged: a weak test", async)
					}
				}
			})
		}
	}
}

// checkerboardPage is the checkerboard rule on a 64x64 grid with a Go
// initial state and the target of 2x2 squares in channel 0.
func checkerboardPage(t *testing.T) (*Page, *circuit.Grid) {
	nl := learned(t, "checkerboard")
	init := randomGrid(64, 64, nl.Channels(), 5)
	target := circuit.NewGrid(64, 64, 1)
	for y := range 64 {
		for x := range 64 {
			target.Set(y, x, 0, uint8((y/2+x/2)%2))
		}
	}
	return &Page{Name: "checkerboard", Netlist: nl, Boundary: circuit.Zero, FireRate: 0.6, Seed: 1,
		Sizes: []Size{{H: 64, W: 64, Init: init, Target: target, TargetChannels: []int{0}}}}, init
}

type pageState struct {
	Step, Wrong, H, W, Scale, Gates int
	Playing, Async                  bool
	Name                            string
}

// The checkerboard grows from the model's initial state, a mouse drag
// across the middle damages it, and it heals within the 40 steps that the
// experiment's self-healing check allows, as circuit.Sim does from the
// same damaged grid.
func TestDragDamageHeals(t *testing.T) {
	p, init := checkerboardPage(t)
	ctx := openPage(t, p)
	eval[any](t, ctx, `dlca.setPlaying(false); dlca.reset("model")`)
	if got := pageCells(t, ctx, 64, 64, 8); !got.Equal(init) {
		t.Fatalf("the model's initial state differs from the exported one: %s", firstDiff(got, init))
	}
	eval[any](t, ctx, "dlca.run(80)")
	s := eval[pageState](t, ctx, "dlca.state()")
	if s.Wrong != 0 || s.Step != 80 {
		t.Fatalf("after 80 steps: %+v, want step 80 and 0 wrong cells", s)
	}
	if s.Gates != len(circuit.RemoveDead(p.Netlist).Gates) || s.Name != "checkerboard" {
		t.Errorf("the page shows %q with %d gates, want %q with %d", s.Name, s.Gates, "checkerboard", len(circuit.RemoveDead(p.Netlist).Gates))
	}
	// Drag from cell (32, 10) to (32, 50) in a few moves.
	r := eval[struct{ X, Y float64 }](t, ctx, `(() => { const r = document.getElementById("grid").getBoundingClientRect(); return {X: r.left, Y: r.top}; })()`)
	at := func(cell int) float64 { return float64(cell*s.Scale) + float64(s.Scale)/2 }
	held := func(p *input.DispatchMouseEventParams) { p.Button, p.Buttons = input.MouseButtonLeft, 1 }
	actions := []chromedp.Action[chromedp.Void]{chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, r.X+at(10), r.Y+at(32), held, chromedp.ClickCount(1))}
	for x := 20; x <= 50; x += 10 {
		actions = append(actions, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, r.X+at(x), r.Y+at(32), held))
	}
	actions = append(actions, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, r.X+at(50), r.Y+at(32), held, chromedp.ClickCount(1)))
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatal(err)
	}
	damaged := pageCells(t, ctx, 64, 64, 8)
	// The brush (3x3) wipes rows 31-33 from column 9 to 51, and nothing else.
	for y := range 64 {
		for x := range 64 {
			wiped := y >= 31 && y <= 33 && x >= 9 && x <= 51
			for ch := range 8 {
				if v := damaged.Get(y, x, ch); wiped && v != 0 {
					t.Fatalf("cell (%d, %d) channel %d is %d after the drag, want wiped", y, x, ch, v)
				}
			}
		}
	}
	if s := eval[pageState](t, ctx, "dlca.state()"); s.Wrong == 0 {
		t.Fatal("the drag left no wrong cell")
	}
	eval[any](t, ctx, "dlca.run(40)")
	want := circuit.NewSim(p.Netlist, circuit.Zero, 1).Run(damaged, 40)
	if got := pageCells(t, ctx, 64, 64, 8); !got.Equal(want) {
		t.Errorf("healing: the page differs from circuit.Sim: %s", firstDiff(got, want))
	}
	if s := eval[pageState](t, ctx, "dlca.state()"); s.Wrong != 0 {
		t.Errorf("40 steps after the damage %d cells are still wrong", s.Wrong)
	}
}

// A screenshot of the page's canvas is, pixel for pixel, what
// viewer/painter paints for the same state at the page's scale, the cells
// that differ from the target framed in its WrongColour.
func TestScreenshotMatchesPainter(t *testing.T) {
	p, _ := checkerboardPage(t)
	ctx := openPage(t, p)
	eval[any](t, ctx, `dlca.setPlaying(false); dlca.reset("model"); dlca.run(7)`)
	s := eval[pageState](t, ctx, "dlca.state()")
	g := pageCells(t, ctx, 64, 64, 8)
	shot, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.ID("grid")))
	if err != nil {
		t.Fatal(err)
	}
	got, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	frame := painter.NewFrame(g.H, g.W, g.C)
	for i, v := range g.Unpack() {
		frame.Cells[i] = float32(v)
	}
	opts := painter.Options{Channel: 0, Scale: s.Scale}
	want := painter.Paint(frame, opts)
	// The cells of channel 0 that differ from the checkerboard target are
	// framed as the viewer frames them.
	wrong, n := make([]bool, g.H*g.W), 0
	for y := range g.H {
		for x := range g.W {
			if wrong[y*g.W+x] = g.Get(y, x, 0) != uint8((y/2+x/2)%2); wrong[y*g.W+x] {
				n++
			}
		}
	}
	if n == 0 || n != s.Wrong {
		t.Fatalf("step 7: %d cells differ from the target, the page counts %d; want some, the same", n, s.Wrong)
	}
	painter.MarkWrong(want, image.Point{}, g.H, g.W, wrong, opts)
	if got.Bounds().Size() != want.Bounds().Size() {
		t.Fatalf("screenshot is %v, the painter's picture %v", got.Bounds().Size(), want.Bounds().Size())
	}
	bad := 0
	for y := range want.Bounds().Dy() {
		for x := range want.Bounds().Dx() {
			r1, g1, b1, _ := got.At(got.Bounds().Min.X+x, got.Bounds().Min.Y+y).RGBA()
			r2, g2, b2, _ := want.At(x, y).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 {
				if bad++; bad <= 3 {
					t.Errorf("pixel (%d, %d): screenshot %v, painter %v", x, y, got.At(got.Bounds().Min.X+x, got.Bounds().Min.Y+y), want.At(x, y))
				}
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d pixels differ", bad, want.Bounds().Dx()*want.Bounds().Dy())
	}
}

// The page runs the learned Game of Life (simplified) on 256x256 for 205
// steps exactly as circuit.Sim does: the correctness behind
// BenchmarkPageLife's figure.
func TestPageLifeMatchesSim(t *testing.T) {
	const n, steps = 256, 205
	s, _ := circuit.Simplify(learned(t, "life"))
	ctx := openPage(t, lifePage(s, n))
	init := randomGrid(n, n, 1, 8)
	eval[any](t, ctx, fmt.Sprintf("dlca.setPlaying(false); dlca.load(%d, %d, %s); dlca.run(%d)", n, n, ints(init.Unpack()), steps))
	want := circuit.NewSim(s, circuit.Periodic, 1).Run(init, steps)
	if got := pageCells(t, ctx, n, n, 1); !got.Equal(want) {
		t.Fatalf("the page's Life differs from circuit.Sim's after %d steps: %s", steps, firstDiff(got, want))
	}
}

// lifePage is the page of the simplified learned Life on an n x n grid.
func lifePage(s *circuit.Netlist, n int) *Page {
	return &Page{Name: "life", Netlist: s, Boundary: circuit.Periodic, FireRate: 0.6, Sizes: []Size{{H: n, W: n}}}
}

// BenchmarkPageLife: the page's simulator (generated JavaScript) in headless
// Chromium on a 256x256 Game of Life, in cell updates per second, beside
// BenchmarkSimLife, circuit.Sim on one core (docs/web.md,
// docs/PERFORMANCE.md).
func BenchmarkPageLife(b *testing.B) {
	const n, steps = 256, 200
	s, _ := circuit.Simplify(learned(b, "life"))
	ctx := openPage(b, lifePage(s, n))
	init := randomGrid(n, n, 1, 8)
	eval[any](b, ctx, fmt.Sprintf("dlca.setPlaying(false); dlca.load(%d, %d, %s); dlca.run(5)", n, n, ints(init.Unpack())))
	var ms float64
	for b.Loop() {
		ms += eval[float64](b, ctx, fmt.Sprintf("dlca.bench(%d)", steps))
	}
	b.ReportMetric(float64(n*n*steps*b.N)/(ms/1000), "cell-updates/s")
}

// BenchmarkSimLife: circuit.Sim on one core, the same grid and rule as
// BenchmarkPageLife.
func BenchmarkSimLife(b *testing.B) {
	const n, steps = 256, 200
	s, _ := circuit.Simplify(learned(b, "life"))
	sim := circuit.NewSim(s, circuit.Periodic, 1)
	init := randomGrid(n, n, 1, 8)
	for b.Loop() {
		sim.Run(init, steps)
	}
	b.ReportMetric(float64(n*n*steps*b.N)/b.Elapsed().Seconds(), "cell-updates/s")
}
