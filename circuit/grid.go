package circuit

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
)

// Grid is an H x W grid of cells with C channels, bit-packed: one plane
// per channel, each row in Words = ceil(W/64) words, cell x in bit x%64 of
// word x/64. Padding bits past W are always zero.
type Grid struct {
	H, W, C int
	Words   int
	Planes  [][]uint64 // [C][H*Words]
}

// NewGrid returns an all-zero grid. It panics unless h, w and c are
// positive.
func NewGrid(h, w, c int) *Grid {
	if h < 1 || w < 1 || c < 1 {
		panic(fmt.Sprintf("circuit: NewGrid(%d, %d, %d): sizes must be positive", h, w, c))
	}
	g := &Grid{H: h, W: w, C: c, Words: (w + 63) / 64}
	g.Planes = make([][]uint64, c)
	for i := range g.Planes {
		g.Planes[i] = make([]uint64, h*g.Words)
	}
	return g
}

// Get returns channel c of cell (y, x).
func (g *Grid) Get(y, x, c int) uint8 {
	return uint8(g.Planes[c][y*g.Words+x/64] >> (x % 64) & 1)
}

// Set sets channel c of cell (y, x) to v&1.
func (g *Grid) Set(y, x, c int, v uint8) {
	w := &g.Planes[c][y*g.Words+x/64]
	*w = *w&^(1<<(x%64)) | uint64(v&1)<<(x%64)
}

// lastMask has the valid bits of a row's last word.
func (g *Grid) lastMask() uint64 {
	if g.W%64 == 0 {
		return ^uint64(0)
	}
	return 1<<(g.W%64) - 1
}

// Randomize sets every cell's channels to random bits drawn from rng.
func (g *Grid) Randomize(rng *rand.Rand) {
	last := g.lastMask()
	for _, p := range g.Planes {
		for i := range p {
			p[i] = rng.Uint64()
			if i%g.Words == g.Words-1 {
				p[i] &= last
			}
		}
	}
}

// Clone returns a copy of the grid.
func (g *Grid) Clone() *Grid {
	c := NewGrid(g.H, g.W, g.C)
	for i := range g.Planes {
		copy(c.Planes[i], g.Planes[i])
	}
	return c
}

// Equal reports whether two grids have the same shape and cells.
func (g *Grid) Equal(o *Grid) bool {
	if g.H != o.H || g.W != o.W || g.C != o.C {
		return false
	}
	for i := range g.Planes {
		for j, w := range g.Planes[i] {
			if o.Planes[i][j] != w {
				return false
			}
		}
	}
	return true
}

// FromCells returns a grid holding bits laid out cell-major, as
// bits[(y*w+x)*c + ch]; nonzero means 1. It panics if len(bits) != h*w*c.
func FromCells(h, w, c int, bits []uint8) *Grid {
	if len(bits) != h*w*c {
		panic(fmt.Sprintf("circuit: FromCells(%d, %d, %d) got %d bits, want %d", h, w, c, len(bits), h*w*c))
	}
	g := NewGrid(h, w, c)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			for ch := 0; ch < c; ch++ {
				if bits[(y*w+x)*c+ch] != 0 {
					g.Set(y, x, ch, 1)
				}
			}
		}
	}
	return g
}

// Unpack returns the grid's bits, one byte each, laid out cell-major as
// FromCells reads them. (dlca.Grid's Cells is a count; this is the cells.)
func (g *Grid) Unpack() []uint8 {
	bits := make([]uint8, g.H*g.W*g.C)
	for y := 0; y < g.H; y++ {
		for x := 0; x < g.W; x++ {
			for ch := 0; ch < g.C; ch++ {
				bits[(y*g.W+x)*g.C+ch] = g.Get(y, x, ch)
			}
		}
	}
	return bits
}

func (g *Grid) mustMatch(o *Grid, op string) {
	if g.H != o.H || g.W != o.W || g.C != o.C {
		panic(fmt.Sprintf("circuit: %s: grids %dx%dx%d and %dx%dx%d differ in shape", op, g.H, g.W, g.C, o.H, o.W, o.C))
	}
}

// FireMask fills dst (one row's words) with the asynchronous fire mask of
// row y at the given step: bit x is set, with probability p quantised to
// 1/65536, when cell x updates. The mask depends only on (seed, step, y),
// never on how rows are split among workers: it is drawn from a wyrand
// stream whose start SplitMix64 mixes from those three. Bits past w are
// zero.
func FireMask(dst []uint64, w int, p float64, seed uint64, step, y int) {
	q := uint64(float64(p*65536) + 0.5) // rounded product: no fused multiply-add
	state := mix64(seed ^ mix64(uint64(step)<<32|uint64(uint32(y))))
	for i := range dst {
		var m uint64
		switch {
		case q >= 65536:
			m = ^uint64(0)
		case q > 0:
			// Bit j of q decides whether a fresh random word is ORed or
			// ANDed in; starting from the least significant set bit this
			// gives each bit of m the probability q/65536 exactly.
			for j := bits.TrailingZeros64(q); j < 16; j++ {
				state += 0xa0761d6478bd642f // wyrand: one 128-bit product per word
				hi, lo := bits.Mul64(state, state^0xe7037ed1a0b428db)
				r := hi ^ lo
				if q>>j&1 == 1 {
					m |= r
				} else {
					m &= r
				}
			}
		}
		dst[i] = m
	}
	if w%64 != 0 {
		dst[len(dst)-1] &= 1<<(w%64) - 1
	}
}

// mix64 is SplitMix64's output function, a bijection that scrambles
// every input bit into every output bit; it seeds the row's stream.
func mix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}
