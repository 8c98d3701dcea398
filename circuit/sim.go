package circuit

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/dlca/dlca/gates"
)

// blockWords is roughly how many words of cells a worker pushes through the
// whole circuit at once: enough to amortise the dispatch of each gate, few
// enough that the live values stay in the L1/L2 cache.
const blockWords = 256

// instr is one gate of a compiled circuit. Operands index the per-block
// value table: inputs first, then scratch slots.
type instr struct {
	op        gates.Op
	dst, a, b int32
}

// Sim runs a cellular-automaton netlist on bit-packed grids, 64 cells per
// word and one bitwise instruction per gate per word. A Sim is safe for
// use by one goroutine at a time.
type Sim struct {
	channels int
	prog     []instr
	outputs  []int32 // value-table index of each output
	slots    int
	boundary Boundary
	workers  int
}

// NewSim compiles a netlist for the simulator (gates that reach no output
// are dropped; nothing else changes). workers <= 0 means GOMAXPROCS. It
// panics if the netlist is not a valid cellular-automaton rule.
func NewSim(nl *Netlist, b Boundary, workers int) *Sim {
	nl.mustCA("NewSim")
	nl = RemoveDead(nl)
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	s := &Sim{channels: nl.Channels(), boundary: b, workers: workers}
	// Register allocation: a gate's slot is freed after its last reader,
	// so the scratch space is the circuit's width, not its size.
	n := int32(nl.NumInputs)
	last := make([]int, nl.NumValues())
	for k, g := range nl.Gates {
		last[g.A], last[g.B] = k, k
	}
	for _, o := range nl.Outputs {
		last[o] = len(nl.Gates)
	}
	slot := make([]int32, nl.NumValues())
	for i := range nl.NumInputs {
		slot[i] = int32(i)
	}
	var free []int32
	for k, g := range nl.Gates {
		in := instr{op: g.Op, a: slot[g.A], b: slot[g.B]}
		for _, v := range [2]int32{g.A, g.B} {
			if v >= n && last[v] == k {
				free = append(free, slot[v])
				last[v] = -1 // free once even when read as a and b
			}
		}
		if len(free) > 0 {
			in.dst = free[len(free)-1]
			free = free[:len(free)-1]
		} else {
			in.dst = n + int32(s.slots)
			s.slots++
		}
		slot[n+int32(k)] = in.dst
		s.prog = append(s.prog, in)
	}
	for _, o := range nl.Outputs {
		s.outputs = append(s.outputs, slot[o])
	}
	return s
}

// Step computes dst = one synchronous step of src. dst and src must be
// distinct grids of the same shape with the netlist's channel count.
func (s *Sim) Step(dst, src *Grid) { s.step(dst, src, 0, 0, 0, false) }

// StepAsync computes one asynchronous step: each cell updates with
// probability p (all its channels together, as FireMask(seed, step, y)
// draws it) and otherwise keeps its state.
func (s *Sim) StepAsync(dst, src *Grid, p float64, seed uint64, step int) {
	s.step(dst, src, p, seed, step, true)
}

// Run advances g by steps synchronous steps and returns the result (g
// itself is left unchanged).
func (s *Sim) Run(g *Grid, steps int) *Grid {
	a, b := g.Clone(), NewGrid(g.H, g.W, g.C)
	for range steps {
		s.Step(b, a)
		a, b = b, a
	}
	return a
}

func (s *Sim) step(dst, src *Grid, p float64, seed uint64, step int, async bool) {
	src.mustMatch(dst, "Sim.Step")
	if src.C != s.channels {
		panic(fmt.Sprintf("circuit: Sim.Step: grid has %d channels, the netlist %d", src.C, s.channels))
	}
	if dst == src {
		panic("circuit: Sim.Step: dst and src must be distinct grids")
	}
	workers := min(s.workers, src.H)
	var wg sync.WaitGroup
	for w := range workers {
		r0, r1 := src.H*w/workers, src.H*(w+1)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.rows(dst, src, r0, r1, p, seed, step, async)
		}()
	}
	wg.Wait()
}

// rows computes rows [r0, r1) of dst, a band of bandRows rows at a time:
// first each channel's rows -1..bandRows of the band shifted west, kept
// and shifted east (with the boundary applied), then every gate over the
// band's words. Input n*C+c then reads the shifted plane of dx = n%3-1 at
// a fixed offset of (n/3) rows, with no per-word work.
func (s *Sim) rows(dst, src *Grid, r0, r1 int, p float64, seed uint64, step int, async bool) {
	ww, c := src.Words, src.C
	bandRows := max(1, blockWords/ww)
	shifted := make([][3][]uint64, c)
	for ch := range shifted {
		for d := range 3 {
			shifted[ch][d] = make([]uint64, (bandRows+2)*ww)
		}
	}
	nIn := 9 * c
	vals := make([][]uint64, nIn+s.slots)
	for i := nIn; i < len(vals); i++ {
		vals[i] = make([]uint64, bandRows*ww)
	}
	fire := make([]uint64, ww)
	last := src.lastMask()
	for y0 := r0; y0 < r1; y0 += bandRows {
		rows := min(bandRows, r1-y0)
		for ch := range c {
			for i := range rows + 2 {
				s.shiftRow(shifted[ch], i*ww, src, ch, y0-1+i)
			}
		}
		words := rows * ww
		for n := range 9 {
			dy, dx := n/3, n%3
			for ch := range c {
				vals[n*c+ch] = shifted[ch][dx][dy*ww : dy*ww+words]
			}
		}
		for _, in := range s.prog {
			applyOp(in.op, vals[in.dst][:words], vals[in.a], vals[in.b])
		}
		for i := range rows {
			y := y0 + i
			if async {
				FireMask(fire, src.W, p, seed, step, y)
			}
			for ch, o := range s.outputs {
				out := dst.Planes[ch][y*ww : (y+1)*ww]
				v := vals[o][i*ww : (i+1)*ww]
				if async {
					old := src.Planes[ch][y*ww : (y+1)*ww]
					for k := range out {
						out[k] = v[k]&fire[k] | old[k]&^fire[k]
					}
				} else {
					copy(out, v)
				}
				out[ww-1] &= last
			}
		}
	}
}

// shiftRow writes row y of channel ch, as seen from each cell's west
// neighbour (d = 0), the cell itself (1) and its east neighbour (2), into
// sh[d][off:off+Words]. Rows beyond the grid wrap or read as zero.
func (s *Sim) shiftRow(sh [3][]uint64, off int, g *Grid, ch, y int) {
	ww := g.Words
	west, mid, east := sh[0][off:off+ww], sh[1][off:off+ww], sh[2][off:off+ww]
	if y < 0 || y >= g.H {
		if s.boundary == Zero {
			clear(west)
			clear(mid)
			clear(east)
			return
		}
		y = (y + g.H) % g.H
	}
	row := g.Planes[ch][y*ww : (y+1)*ww]
	copy(mid, row)
	top := (g.W - 1) % 64 // bit of the last cell in the last word
	var wrapW, wrapE uint64
	if s.boundary == Periodic {
		wrapW = row[ww-1] >> top & 1 // cell W-1, west of cell 0
		wrapE = row[0] & 1           // cell 0, east of cell W-1
	}
	// Cell x's west neighbour is cell x-1: move every bit up by one.
	west[0] = row[0]<<1 | wrapW
	for k := 1; k < ww; k++ {
		west[k] = row[k]<<1 | row[k-1]>>63
	}
	// Cell x's east neighbour is cell x+1: move every bit down by one.
	for k := 0; k < ww-1; k++ {
		east[k] = row[k]>>1 | row[k+1]<<63
	}
	east[ww-1] = row[ww-1]>>1 | wrapE<<top
}
