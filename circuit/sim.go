package circuit

import (
	"fmt"
	"runtime"

	"github.com/dlca/dlca/gates"
	"github.com/dlca/dlca/internal/parallel"
)

// scratchWords bounds a worker's scratch memory (shifted input rows and
// gate values), in words: 192 KiB, which stays in a core's L2 cache. Each
// gate is applied to as many words at once as fit, at most maxBlockWords:
// the more words per gate, the less its dispatch costs per word.
const (
	scratchWords  = 24 << 10
	maxBlockWords = 1024
)

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
	outputs  []int32   // value-table index of each output
	direct   []bool    // per output: its gate writes straight into the next grid
	need     [][3]bool // per channel: whether anything reads its west, own, east shift
	slots    int
	boundary Boundary
	workers  int
	block    int          // words per band (rounded to whole rows)
	spaces   []*workspace // one per worker, kept between steps
}

// workspace is one worker's scratch memory for grids of one row width.
type workspace struct {
	words    int           // row width in words it was made for
	bandRows int           // rows per band
	shifted  [][3][]uint64 // per channel: west, centre, east rows of a band and its halo
	vals     [][]uint64    // value table: inputs (views into shifted), then slots
	fire     []uint64      // one row's fire mask
}

// workspace returns worker w's scratch memory for grids like g.
func (s *Sim) workspace(w int, g *Grid) *workspace {
	if ws := s.spaces[w]; ws != nil && ws.words == g.Words {
		return ws
	}
	ww, c := g.Words, g.C
	ws := &workspace{words: ww, bandRows: max(1, s.block/ww), fire: make([]uint64, ww)}
	ws.shifted = make([][3][]uint64, c)
	for ch := range ws.shifted {
		for d := range 3 {
			ws.shifted[ch][d] = make([]uint64, (ws.bandRows+2)*ww)
		}
	}
	ws.vals = make([][]uint64, 9*c+s.slots)
	for i := 9 * c; i < len(ws.vals); i++ {
		ws.vals[i] = make([]uint64, ws.bandRows*ww)
	}
	s.spaces[w] = ws
	return ws
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
	s := &Sim{channels: nl.Channels(), boundary: b, workers: workers, spaces: make([]*workspace, workers)}
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
	// An output computed by a gate (and not already claimed by an earlier
	// output) has its slot point into the next grid's plane, saving a copy.
	claimed := make(map[int32]bool) // looked up only
	for _, o := range nl.Outputs {
		s.outputs = append(s.outputs, slot[o])
		s.direct = append(s.direct, o >= n && !claimed[slot[o]])
		claimed[slot[o]] = true
	}
	s.block = min(maxBlockWords, max(64, scratchWords/(s.slots+3*s.channels)))
	// Only the shifted planes that some gate or output reads are computed.
	s.need = make([][3]bool, s.channels)
	read := func(v int32) {
		if v < n {
			s.need[int(v)%s.channels][int(v)/s.channels%3] = true
		}
	}
	for _, g := range nl.Gates {
		if dependsOnA(g.Op) {
			read(g.A)
		}
		if dependsOnB(g.Op) {
			read(g.B)
		}
	}
	for _, o := range nl.Outputs {
		read(o)
	}
	return s
}

// Step computes dst = one synchronous step of src. dst and src must be
// distinct grids of the same shape with the netlist's channel count.
func (s *Sim) Step(dst, src *Grid) { s.step(dst, src, nil) }

// StepAsync computes one asynchronous step: each cell updates with
// probability p (all its channels together, as FireMask(seed, step, y)
// draws it) and otherwise keeps its state.
func (s *Sim) StepAsync(dst, src *Grid, p float64, seed uint64, step int) {
	s.step(dst, src, func(y int, buf []uint64) []uint64 {
		FireMask(buf, src.W, p, seed, step, y)
		return buf
	})
}

// StepFire computes one asynchronous step with given fire masks: the cells
// set in fire, a one-channel grid of the same height and width, update;
// the others keep their state.
func (s *Sim) StepFire(dst, src, fire *Grid) {
	if fire.H != src.H || fire.W != src.W || fire.C != 1 {
		panic(fmt.Sprintf("circuit: Sim.StepFire: fire mask %dx%dx%d for a %dx%d grid, want one channel of the same size", fire.H, fire.W, fire.C, src.H, src.W))
	}
	s.step(dst, src, func(y int, _ []uint64) []uint64 {
		return fire.Planes[0][y*fire.Words : (y+1)*fire.Words]
	})
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

// step runs one step; fireRow, when not nil, returns row y's fire mask
// (possibly written into buf, one row's words).
func (s *Sim) step(dst, src *Grid, fireRow func(y int, buf []uint64) []uint64) {
	src.mustMatch(dst, "Sim.Step")
	if src.C != s.channels {
		panic(fmt.Sprintf("circuit: Sim.Step: grid has %d channels, the netlist %d", src.C, s.channels))
	}
	if dst == src {
		panic("circuit: Sim.Step: dst and src must be distinct grids")
	}
	parallel.For(src.H, s.workers, func(w, r0, r1 int) {
		s.rows(s.workspace(w, src), dst, src, r0, r1, fireRow)
	})
}

// rows computes rows [r0, r1) of dst, a band of bandRows rows at a time:
// first each channel's rows -1..bandRows of the band shifted west, kept
// and shifted east (with the boundary applied), then every gate over the
// band's words. Input n*C+c then reads the shifted plane of dx = n%3-1 at
// a fixed offset of (n/3) rows, with no per-word work.
func (s *Sim) rows(ws *workspace, dst, src *Grid, r0, r1 int, fireRow func(y int, buf []uint64) []uint64) {
	ww, c := src.Words, src.C
	bandRows, shifted, vals := ws.bandRows, ws.shifted, ws.vals
	last := src.lastMask()
	for y0 := r0; y0 < r1; y0 += bandRows {
		rows := min(bandRows, r1-y0)
		for ch := range c {
			for i := range rows + 2 {
				s.shiftRow(shifted[ch], s.need[ch], i*ww, src, ch, y0-1+i)
			}
		}
		words := rows * ww
		for n := range 9 {
			dy, dx := n/3, n%3
			for ch := range c {
				vals[n*c+ch] = shifted[ch][dx][dy*ww : dy*ww+words]
			}
		}
		for ch, o := range s.outputs {
			if s.direct[ch] {
				vals[o] = dst.Planes[ch][y0*ww : y0*ww+words]
			}
		}
		for _, in := range s.prog {
			applyOp(in.op, vals[in.dst][:words], vals[in.a], vals[in.b])
		}
		for i := range rows {
			y := y0 + i
			var fire []uint64
			if fireRow != nil {
				fire = fireRow(y, ws.fire)
			}
			for ch, o := range s.outputs {
				out := dst.Planes[ch][y*ww : (y+1)*ww]
				v := vals[o][i*ww : (i+1)*ww]
				switch {
				case fire != nil:
					old := src.Planes[ch][y*ww : (y+1)*ww]
					for k := range out {
						out[k] = v[k]&fire[k] | old[k]&^fire[k]
					}
				case !s.direct[ch]:
					copy(out, v)
				}
				out[ww-1] &= last
			}
		}
	}
}

// shiftRow writes row y of channel ch, as seen from each cell's west
// neighbour (d = 0), the cell itself (1) and its east neighbour (2), into
// sh[d][off:off+Words], for the d that need[d] asks for. Rows beyond the
// grid wrap or read as zero.
func (s *Sim) shiftRow(sh [3][]uint64, need [3]bool, off int, g *Grid, ch, y int) {
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
	if need[1] {
		copy(mid, row)
	}
	top := (g.W - 1) % 64 // bit of the last cell in the last word
	var wrapW, wrapE uint64
	if s.boundary == Periodic {
		wrapW = row[ww-1] >> top & 1 // cell W-1, west of cell 0
		wrapE = row[0] & 1           // cell 0, east of cell W-1
	}
	if need[0] {
		// Cell x's west neighbour is cell x-1: move every bit up by one.
		west[0] = row[0]<<1 | wrapW
		for k := 1; k < ww; k++ {
			west[k] = row[k]<<1 | row[k-1]>>63
		}
	}
	if need[2] {
		// Cell x's east neighbour is cell x+1: move every bit down by one.
		for k := 0; k < ww-1; k++ {
			east[k] = row[k]>>1 | row[k+1]<<63
		}
		east[ww-1] = row[ww-1]>>1 | wrapE<<top
	}
}
