package gpu

import (
	"math/rand/v2"
	"testing"

	"github.com/dlca/dlca/circuit"
)

var testGrids = []Grid{
	{Batch: 2, Height: 5, Width: 7, Channels: 3, Boundary: circuit.Zero},
	{Batch: 2, Height: 5, Width: 7, Channels: 3, Boundary: circuit.Periodic},
	{Batch: 1, Height: 1, Width: 2, Channels: 1, Boundary: circuit.Periodic}, // wraps onto itself
}

// neighbour returns the index of cell (b, y+dy, x+dx), or -1 outside a zero
// boundary: the paper's definition, written independently of the kernels.
func neighbour(g Grid, b, y, x, dy, dx int) int {
	y, x = y+dy, x+dx
	if g.Boundary == circuit.Periodic {
		y, x = (y+g.Height)%g.Height, (x+g.Width)%g.Width
	} else if y < 0 || y >= g.Height || x < 0 || x >= g.Width {
		return -1
	}
	return (b*g.Height+y)*g.Width + x
}

func TestPerceptionGather(t *testing.T) {
	forEachKernels(t, func(t *testing.T, k Kernels) {
		for _, g := range testGrids {
			rng := rand.New(rand.NewPCG(1, 2))
			state := randSlice(rng, g.Len(), 0, 1)
			dnb := randSlice(rng, 9*g.Len(), -1, 1)
			want := make([]float32, 9*g.Len())
			wantBack := make([]float64, g.Len())
			for b := range g.Batch {
				for y := range g.Height {
					for x := range g.Width {
						cell := (b*g.Height+y)*g.Width + x
						for n := range 9 {
							src := neighbour(g, b, y, x, n/3-1, n%3-1)
							for c := range g.Channels {
								i := (n*g.Channels+c)*g.Cells() + cell // [9][C][cells]
								if src >= 0 {
									want[i] = state[src*g.Channels+c]
									wantBack[src*g.Channels+c] += float64(dnb[i]) // scatter: the adjoint
								}
							}
						}
					}
				}
			}
			got, err := k.PerceptionGather(state, g)
			if err != nil {
				t.Fatal(err)
			}
			closeTo(t, "PerceptionGather", got, want, 0)
			back, err := k.PerceptionGatherBackward(dnb, g)
			if err != nil {
				t.Fatal(err)
			}
			closeTo(t, "PerceptionGatherBackward", back, wantBack, 1e-6)
		}
	})
}

func TestUpdateInput(t *testing.T) {
	c := Concat{Cells: 6, Channels: 3, Kernels: 4, Bits: 2}
	rng := rand.New(rand.NewPCG(3, 4))
	state := randSlice(rng, c.Cells*c.Channels, 0, 1)
	percep := randSlice(rng, c.Cells*c.Channels*c.Kernels*c.Bits, 0, 1)
	duin := randSlice(rng, c.Cells*c.Width(), -1, 1)
	// dlca's documented order: own bits, then perception bit (ch, s, k) at
	// feature C + (ch*S + s)*K + k; uin is [features][cells] and percep
	// [K*S][C][cells] (kernel k's gate s over rows (channel, cell)).
	want := make([]float32, c.Cells*c.Width())
	wantDS := make([]float32, len(state))
	wantDP := make([]float32, len(percep))
	for cell := range c.Cells {
		for ch := range c.Channels {
			want[ch*c.Cells+cell] = state[cell*c.Channels+ch]
			wantDS[cell*c.Channels+ch] = duin[ch*c.Cells+cell]
			for kk := range c.Kernels {
				for s := range c.Bits {
					col := (c.Channels+(ch*c.Bits+s)*c.Kernels+kk)*c.Cells + cell
					p := ((kk*c.Bits+s)*c.Channels+ch)*c.Cells + cell
					want[col] = percep[p]
					wantDP[p] = duin[col]
				}
			}
		}
	}
	forEachKernels(t, func(t *testing.T, k Kernels) {
		got, err := k.UpdateInput(state, percep, c)
		if err != nil {
			t.Fatal(err)
		}
		closeTo(t, "UpdateInput", got, want, 0)
		ds, dp, err := k.UpdateInputBackward(duin, c)
		if err != nil {
			t.Fatal(err)
		}
		closeTo(t, "UpdateInputBackward state", ds, wantDS, 0)
		closeTo(t, "UpdateInputBackward percep", dp, wantDP, 0)
	})
}

func TestFireMask(t *testing.T) {
	g := Grid{Batch: 1, Height: 2, Width: 3, Channels: 2}
	fire := []float32{1, 0, 0, 1, 1, 0}
	rng := rand.New(rand.NewPCG(5, 6))
	state, upd, dnext := randSlice(rng, g.Len(), 0, 1), randSlice(rng, g.Len(), 0, 1), randSlice(rng, g.Len(), -1, 1)
	want := make([]float32, g.Len())
	wantDU := make([]float32, g.Len())
	wantDS := make([]float32, g.Len())
	for i := range want { // i = cell*C + c; upd is [C][cells]
		u := (i%2)*g.Cells() + i/2
		if fire[i/2] == 1 {
			want[i], wantDU[u] = upd[u], dnext[i]
		} else {
			want[i], wantDS[i] = state[i], dnext[i]
		}
	}
	forEachKernels(t, func(t *testing.T, k Kernels) {
		got, err := k.FireMask(fire, state, upd, g)
		if err != nil {
			t.Fatal(err)
		}
		closeTo(t, "FireMask", got, want, 0)
		du, ds, err := k.FireMaskBackward(fire, dnext, g)
		if err != nil {
			t.Fatal(err)
		}
		closeTo(t, "FireMaskBackward upd", du, wantDU, 0)
		closeTo(t, "FireMaskBackward state", ds, wantDS, 0)
	})
}

func TestLoss(t *testing.T) {
	g := Grid{Batch: 2, Height: 9, Width: 10, Channels: 4}
	weight := []float32{1, 0, 1, 0}
	rng := rand.New(rand.NewPCG(7, 8))
	state, target := randSlice(rng, g.Len(), 0, 1), randSlice(rng, g.Len(), 0, 1)
	want := 0.0
	wantD := make([]float64, g.Len())
	for i := range state {
		if c := i % 4; c == 0 || c == 2 {
			d := float64(state[i]) - float64(target[i])
			want += d * d
			wantD[i] = 2 * d
		}
	}
	forEachKernels(t, func(t *testing.T, k Kernels) {
		loss, d, err := k.Loss(weight, state, target, g)
		if err != nil {
			t.Fatal(err)
		}
		closeTo(t, "Loss", []float32{loss}, []float64{want}, 1e-5)
		closeTo(t, "Loss gradient", d, wantD, 1e-6)
	})
}

// TestStatePenaltyGrad: the penalty's gradient, weight*(1-2x) per value,
// added to the gradient already there (a grid-stride loop's worth of values
// and more).
func TestStatePenaltyGrad(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n, weight = 5000, 0.3
	state, dstate := randSlice(rng, n, 0, 1), randSlice(rng, n, -1, 1)
	want := make([]float64, n)
	for i, x := range state {
		want[i] = float64(dstate[i]) + weight*(1-2*float64(x))
	}
	forEachKernels(t, func(t *testing.T, k Kernels) {
		got, err := k.StatePenaltyGrad(state, dstate, weight)
		if err != nil {
			t.Fatal(err)
		}
		closeTo(t, "StatePenaltyGrad", got, want, 1e-6)
	})
}
