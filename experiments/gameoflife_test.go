package experiments

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/dlca"
)

// parseBoard reads rows of '.' (dead) and '#' (alive).
func parseBoard(rows ...string) []uint8 {
	var b []uint8
	for _, r := range rows {
		for _, c := range r {
			b = append(b, uint8(strings.IndexRune(".#", c)))
		}
	}
	return b
}

func TestLifeStep(t *testing.T) {
	for _, tc := range []struct {
		name       string
		h, w       int
		from, want []string
	}{
		{"block is still", 4, 4,
			[]string{"....", ".##.", ".##.", "...."},
			[]string{"....", ".##.", ".##.", "...."}},
		{"blinker turns", 5, 5,
			[]string{".....", "..#..", "..#..", "..#..", "....."},
			[]string{".....", ".....", ".###.", ".....", "....."}},
		{"lonely cell dies", 3, 4,
			[]string{"....", ".#..", "...."},
			[]string{"....", "....", "...."}},
		// On a 3x3 torus every cell neighbours the other eight: a full row
		// gives the live cells 2 neighbours (survive) and the dead 3 (born).
		{"3x3 torus row fills the board", 3, 3,
			[]string{"###", "...", "..."},
			[]string{"###", "###", "###"}},
		// The edges wrap: a blinker across the left/right edge still turns.
		{"blinker across the edge", 5, 5,
			[]string{".....", ".....", "##..#", ".....", "....."},
			[]string{".....", "#....", "#....", "#....", "....."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := LifeStep(parseBoard(tc.from...), tc.h, tc.w)
			if want := parseBoard(tc.want...); string(got) != string(want) {
				t.Fatalf("got %v, want %v", got, want)
			}
		})
	}
}

func TestLifeGliderReturnsShifted(t *testing.T) {
	// A glider moves one cell down and one right every 4 steps; on an 8x8
	// torus it is back where it started after 32 steps.
	b := parseBoard(".#......", "..#.....", "###.....", "........", "........", "........", "........", "........")
	start := string(b)
	for range 4 {
		b = LifeStep(b, 8, 8)
	}
	if want := parseBoard("........", "..#.....", "...#....", ".###....", "........", "........", "........", "........"); string(b) != string(want) {
		t.Fatalf("after 4 steps %v, want the glider shifted by (1, 1)", b)
	}
	for range 28 {
		b = LifeStep(b, 8, 8)
	}
	if string(b) != start {
		t.Fatal("after 32 steps the glider is not back home")
	}
}

func TestGameOfLifeSettings(t *testing.T) {
	e, err := Get("gameoflife")
	if err != nil {
		t.Fatal(err)
	}
	// PAPER.md section 3: 17 update inputs, 24 update layers, 3000 iterations of 20 boards.
	if e.Model.UpdateInputs() != 17 || len(e.Model.UpdateLayers) != 24 || e.Iterations != 3000 || e.Batch != 20 || e.Steps != 1 || e.Model.Boundary != circuit.Periodic {
		t.Fatalf("settings differ from the paper: %+v", e)
	}
	batch := e.Source()(rand.New(rand.NewPCG(3, 0)))
	if len(batch.Target) != 20*9 {
		t.Fatalf("target of %d values, want 20 boards of 9", len(batch.Target))
	}
	for b := range 20 {
		init := make([]uint8, 9)
		for i := range init {
			init[i] = uint8(batch.Init[b*9+i])
		}
		want := LifeStep(init, 3, 3)
		for i, v := range want {
			if batch.Target[b*9+i] != float32(v) {
				t.Fatalf("board %d: target is not the next Life state", b)
			}
		}
	}
}

// TestGameOfLifeChecksFailAnUntrainedModel: a fresh model's gates pass one
// of their inputs through, which is not Life.
func TestGameOfLifeChecksFailAnUntrainedModel(t *testing.T) {
	e, _ := Get("gameoflife")
	m, err := dlca.New(e.Model, autograd.Float32)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range RunChecks(e, m) {
		if r.Passed || r.Wrong == 0 {
			t.Errorf("%s passed an untrained model: %s", r.Name, r.Detail)
		}
	}
}

// TestGameOfLifeLearnsLife trains the paper's Game of Life network until its
// hard circuit is right on all 512 neighbourhoods (about 2000 iterations,
// 30 s on 2 cores), then runs the grid check against LifeStep.
func TestGameOfLifeLearnsLife(t *testing.T) {
	if testing.Short() {
		t.Skip("trains for about 30 s")
	}
	e, _ := Get("gameoflife")
	m, err := dlca.New(e.Model, autograd.Float32)
	if err != nil {
		t.Fatal(err)
	}
	setup := e.Setup(m)
	eng, err := bptt.NewCPU(setup)
	if err != nil {
		t.Fatal(err)
	}
	var learnt *dlca.Model
	watch := func(ev bptt.Event) {
		if learnt == nil && ev.Iteration%25 == 0 && ev.HardLoss == 0 && checkAllNeighbourhoods(e, ev.Model).Passed {
			learnt = ev.Model
		}
	}
	run := e.Run(watch)
	run.Stop = func(bptt.Metrics) bool { return learnt != nil }
	metrics, _, err := bptt.Train(context.Background(), eng, setup, run)
	if err != nil {
		t.Fatal(err)
	}
	last := metrics[len(metrics)-1]
	if learnt == nil {
		t.Fatalf("after %d iterations the circuit is still wrong on some neighbourhoods (hard loss %v)", last.Iteration, last.HardLoss)
	}
	if r := checkLifeGrid(learnt, 64, 100, e.lifeGridInit(64), nil); !r.Passed {
		t.Fatalf("right on the 512 neighbourhoods but not on a grid: %s", r.Detail)
	}
	t.Logf("Life learnt at iteration %d, %d active gates (paper: 336)", last.Iteration, last.ActiveGates)
}
