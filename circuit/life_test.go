package circuit

import (
	"fmt"

	"github.com/dlca/dlca/gates"
	"github.com/dlca/dlca/internal/parallel"
)

// LifeCircuit returns Conway's Game of Life as a netlist of 28 two-input
// gates (one channel, 9 inputs): an adder tree counts the eight neighbours
// modulo 8 into bits s0, s1, s2, and the cell is alive next when
// s1 AND NOT s2 AND (s0 OR alive), that is, when the count is 3, or 2 and
// the cell is alive (a count of 8 wraps to 0 and correctly gives death).
// Gates are labelled "count" and "rule".
func LifeCircuit() *Netlist {
	nl := &Netlist{NumInputs: 9, Labels: []string{}}
	section := "count"
	g := func(op gates.Op, a, b int32) int32 {
		nl.Gates = append(nl.Gates, Gate{Op: op, A: a, B: b})
		nl.Labels = append(nl.Labels, section)
		return int32(nl.NumValues() - 1)
	}
	full := func(x, y, z int32) (sum, carry int32) {
		xy := g(gates.Xor, x, y)
		return g(gates.Xor, xy, z), g(gates.Or, g(gates.And, x, y), g(gates.And, xy, z))
	}
	half := func(x, y int32) (sum, carry int32) {
		return g(gates.Xor, x, y), g(gates.And, x, y)
	}
	// Neighbours are inputs 0..8 except the centre, 4.
	sa, ca := full(0, 1, 2)
	sb, cb := full(3, 5, 6)
	sc, cc := half(7, 8)
	s0, cd := full(sa, sb, sc)
	u, v := full(ca, cb, cc) // the weight-2 carries, without cd
	s1, w := half(u, cd)
	s2 := g(gates.Xor, v, w)
	section = "rule"
	nl.Outputs = []int32{g(gates.And, g(gates.AAndNotB, s1, s2), g(gates.Or, s0, 4))}
	return nl
}

// lifeRule is Conway's rule on a neighbourhood's 9 bits, written with
// integer counting as an independent reference.
func lifeRule(nb []uint8) uint8 {
	n := 0
	for i, b := range nb {
		if i != 4 {
			n += int(b)
		}
	}
	if n == 3 || n == 2 && nb[4] == 1 {
		return 1
	}
	return 0
}

// StepLife computes one step of Conway's Game of Life from src (one
// channel) into dst, the classic bit-parallel way: each row's cells are
// summed three at a time into two-bit counts (west + centre + east above
// and below, west + east in the row itself), the three counts are added
// with full adders kept in registers, and the rule is applied to the sum's
// bits. It is written by hand, independently of the netlist machinery, as
// the yardstick the simulator's speed is compared with. workers <= 0 means
// GOMAXPROCS.
func StepLife(dst, src *Grid, b Boundary, workers int) {
	src.mustMatch(dst, "StepLife")
	if src.C != 1 {
		panic(fmt.Sprintf("circuit: StepLife: Life has 1 channel, the grid %d", src.C))
	}
	parallel.For(src.H, workers, func(_, r0, r1 int) { lifeRows(dst, src, b, r0, r1) })
}

// lifeRows computes rows [r0, r1) of a Life step.
func lifeRows(dst, src *Grid, b Boundary, r0, r1 int) {
	ww, top, last := src.Words, (src.W-1)%64, src.lastMask()
	p := src.Planes[0]
	zero := make([]uint64, ww)
	row := func(y int) []uint64 {
		if y < 0 || y >= src.H {
			if b == Zero {
				return zero
			}
			y = (y + src.H) % src.H
		}
		return p[y*ww : (y+1)*ww]
	}
	// neighbours returns word k of a row and of its west and east shifts.
	neighbours := func(r []uint64, k int) (west, mid, east uint64) {
		mid = r[k]
		var cw, ce uint64
		switch {
		case k > 0:
			cw = r[k-1] >> 63
		case b == Periodic:
			cw = r[ww-1] >> top & 1
		}
		switch {
		case k < ww-1:
			ce = r[k+1] << 63
		case b == Periodic:
			ce = (r[0] & 1) << top
		}
		return mid<<1 | cw, mid, mid>>1 | ce
	}
	for y := r0; y < r1; y++ {
		up, here, down := row(y-1), row(y), row(y+1)
		out := dst.Planes[0][y*ww : (y+1)*ww]
		for k := range out {
			uw, uc, ue := neighbours(up, k)
			hw, alive, he := neighbours(here, k)
			dw, dc, de := neighbours(down, k)
			// Two-bit counts (bit 1, bit 0) of each row's neighbours.
			u0, u1 := uw^uc^ue, uw&uc|ue&(uw^uc)
			h0, h1 := hw^he, hw&he
			d0, d1 := dw^dc^de, dw&dc|de&(dw^dc)
			// Add them: bit 0 and its carry, then the four weight-2 bits.
			s0 := u0 ^ h0 ^ d0
			c0 := u0&h0 | d0&(u0^h0)
			x, z := u1^h1, d1^c0
			s1 := x ^ z
			s2 := u1&h1 ^ d1&c0 ^ x&z // the count's bit 2 (mod 8)
			out[k] = s1 &^ s2 & (s0 | alive)
		}
		out[ww-1] &= last
	}
}
