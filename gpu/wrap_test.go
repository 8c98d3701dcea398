package gpu

import (
	"fmt"
	"testing"

	"github.com/dlca/dlca/circuit"
)

// wrapGrids are periodic grids on which every wrap a 3x3 neighbourhood can
// make happens: every edge and corner, a side of 1 (the cell is its own
// neighbour on both sides), a side of 2 (the left and right neighbours are
// the same cell) and a side of 3; batch 2, so that a wrap into the next
// image shows.
var wrapGrids = []Grid{
	{Batch: 2, Height: 1, Width: 1, Channels: 2, Boundary: circuit.Periodic},
	{Batch: 2, Height: 1, Width: 3, Channels: 2, Boundary: circuit.Periodic},
	{Batch: 2, Height: 2, Width: 2, Channels: 2, Boundary: circuit.Periodic},
	{Batch: 2, Height: 3, Width: 1, Channels: 1, Boundary: circuit.Periodic},
	{Batch: 2, Height: 3, Width: 4, Channels: 2, Boundary: circuit.Periodic},
	{Batch: 2, Height: 5, Width: 7, Channels: 3, Boundary: circuit.Periodic},
}

// edgeName says where cell (y, x) lies on an h x w grid, for a failure to
// name the edge or corner that wrapped wrongly.
func edgeName(h, w, y, x int) string {
	var v, u string
	switch {
	case y == 0 && h == 1:
		v = "top=bottom"
	case y == 0:
		v = "top"
	case y == h-1:
		v = "bottom"
	}
	switch {
	case x == 0 && w == 1:
		u = "left=right"
	case x == 0:
		u = "left"
	case x == w-1:
		u = "right"
	}
	switch {
	case v != "" && u != "":
		return v + "-" + u + " corner"
	case v != "":
		return v + " edge"
	case u != "":
		return u + " edge"
	}
	return "interior"
}

// TestPerceptionWrapsEveryEdge holds the perception gather and its backward
// pass (the kernels that wrap a periodic grid, lib/neighbour.wgsl's source)
// to the paper's definition on every cell of wrapGrids, exactly: each state
// value is distinct, so a neighbour taken from the wrong cell, channel or
// image is a wrong value, and the backward pass's scatter is summed in
// float64 from the definition. On an NVIDIA H100 the wrap of
// (sy % h + h) % h read the wrong cells on every edge (issue 26).
func TestPerceptionWrapsEveryEdge(t *testing.T) {
	forEachKernels(t, func(t *testing.T, k Kernels) {
		for _, g := range wrapGrids {
			t.Run(fmt.Sprintf("%dx%dx%dx%d", g.Batch, g.Height, g.Width, g.Channels), func(t *testing.T) {
				state := make([]float32, g.Len())
				for i := range state {
					state[i] = float32(i + 1) // distinct, exact in float32
				}
				dnb := make([]float32, 9*g.Len())
				for i := range dnb {
					dnb[i] = float32(i%97) / 8 // exact sums
				}
				got, err := k.PerceptionGather(state, g)
				if err != nil {
					t.Fatal(err)
				}
				back, err := k.PerceptionGatherBackward(dnb, g)
				if err != nil {
					t.Fatal(err)
				}
				wantBack := make([]float64, g.Len())
				for b := range g.Batch {
					for y := range g.Height {
						for x := range g.Width {
							cell := (b*g.Height+y)*g.Width + x
							for n := range 9 {
								src := neighbour(g, b, y, x, n/3-1, n%3-1)
								for c := range g.Channels {
									i := (n*g.Channels+c)*g.Cells() + cell // [9][C][cells]
									if got[i] != state[src*g.Channels+c] {
										t.Errorf("gather: cell (%d,%d,%d), %s, neighbour (%+d,%+d), channel %d: %v, want %v (the state of cell %d)",
											b, y, x, edgeName(g.Height, g.Width, y, x), n/3-1, n%3-1, c, got[i], state[src*g.Channels+c], src)
									}
									wantBack[src*g.Channels+c] += float64(dnb[i])
								}
							}
						}
					}
				}
				for i, w := range wantBack {
					if float64(back[i]) != w {
						cell := i / g.Channels
						y, x := (cell/g.Width)%g.Height, cell%g.Width
						t.Errorf("backward: cell %d (%s), channel %d: %v, want %v", cell, edgeName(g.Height, g.Width, y, x), i%g.Channels, back[i], w)
					}
				}
			})
		}
	})
}
