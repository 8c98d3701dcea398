package dlca

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/dlca/dlca/circuit"
)

// docModel is a model file decoded with nothing but docs/model-format.md in
// hand.
type docModel struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	Config  struct {
		Channels int    `json:"channels"`
		Boundary string `json:"boundary"`
		Kernels  int    `json:"kernels"`
		Layers   []int  `json:"kernel_layers"`
	} `json:"config"`
	Perception, Update []struct {
		In, Out, Groups int
		A, B            []int
		Logits          []float64
	}
}

// op returns the argmax op of gate j of group g (lowest op on a tie).
func docOp(logits []float64, out, g, j int) int {
	best := 0
	for o := 1; o < 16; o++ {
		if logits[(g*out+j)*16+o] > logits[(g*out+j)*16+best] {
			best = o
		}
	}
	return best
}

func docApply(op, a, b int) int { return (op >> (3 - (2*a + b))) & 1 }

// docStep is one synchronous step of the hard automaton exactly as the
// document describes it, cell by cell.
func docStep(m *docModel, grid [][][]int) [][][]int {
	h, w, c, k := len(grid), len(grid[0]), m.Config.Channels, m.Config.Kernels
	s := m.Config.Layers[len(m.Config.Layers)-1]
	next := make([][][]int, h)
	for y := range h {
		next[y] = make([][]int, w)
		for x := range w {
			nb := func(n, ch int) int {
				yy, xx := y+n/3-1, x+n%3-1
				if m.Config.Boundary == "periodic" {
					yy, xx = (yy+h)%h, (xx+w)%w
				} else if yy < 0 || yy >= h || xx < 0 || xx >= w {
					return 0
				}
				return grid[yy][xx][ch]
			}
			u := make([]int, c+c*k*s)
			for ch := range c {
				u[ch] = nb(4, ch)
				for kk := range k {
					v := make([]int, 9)
					for n := range v {
						v[n] = nb(n, ch)
					}
					for _, l := range m.Perception {
						nv := make([]int, l.Out)
						for j := range nv {
							nv[j] = docApply(docOp(l.Logits, l.Out, kk, j), v[l.A[j]], v[l.B[j]])
						}
						v = nv
					}
					for b := range s {
						u[c+(ch*s+b)*k+kk] = v[b]
					}
				}
			}
			for _, l := range m.Update {
				nu := make([]int, l.Out)
				for j := range nu {
					nu[j] = docApply(docOp(l.Logits, l.Out, 0, j), u[l.A[j]], u[l.B[j]])
				}
				u = nu
			}
			next[y][x] = u
		}
	}
	return next
}

// TestModelFormatDocumentDescribesTheCircuit reads a saved model the way
// docs/model-format.md tells another program to, runs the hard automaton by
// the document's recipe, and requires the same states as Circuit.Rollout.
func TestModelFormatDocumentDescribesTheCircuit(t *testing.T) {
	for _, b := range []circuit.Boundary{circuit.Zero, circuit.Periodic} {
		t.Run(b.String(), func(t *testing.T) {
			m := tinyModel(t, tinyConfig(b), 31)
			var buf bytes.Buffer
			if err := m.Write(&buf); err != nil {
				t.Fatal(err)
			}
			var dm docModel
			if err := json.Unmarshal(buf.Bytes(), &dm); err != nil {
				t.Fatal(err)
			}
			if dm.Format != "dlca-model" || dm.Version != 1 {
				t.Fatalf("format %q version %d", dm.Format, dm.Version)
			}
			start := randomBits(4, 1, 5, 6, 2)
			grid := make([][][]int, 5)
			for y := range grid {
				grid[y] = make([][]int, 6)
				for x := range grid[y] {
					for c := range 2 {
						grid[y][x] = append(grid[y][x], int(start.Get(0, y, x, c)))
					}
				}
			}
			circ := m.Circuit()
			cur := start
			for step := 1; step <= 4; step++ {
				grid = docStep(&dm, grid)
				cur = circ.Rollout(cur, 1, HardOptions{})
				for y := range grid {
					for x := range grid[y] {
						for c := range 2 {
							if int(cur.Get(0, y, x, c)) != grid[y][x][c] {
								t.Fatalf("step %d cell (%d,%d) channel %d: circuit %d, document %d", step, y, x, c, cur.Get(0, y, x, c), grid[y][x][c])
							}
						}
					}
				}
			}
		})
	}
}
