package gpu

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// randomIndex returns n indices in [0, k), drawn with repeats so that many
// land on one element and scatter_add.wgsl sums several.
func randomIndex(r *rand.Rand, n, k int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = r.IntN(k)
	}
	return idx
}

// The gathers must equal autograd's exactly, and so must the scatters: the
// reverse index adds in autograd's order.

func TestIndexSelectAndIndexAdd(t *testing.T) {
	k := GPU{D: testDevice(t)}
	r := rand.New(rand.NewPCG(13, 14))
	for _, c := range []struct {
		shape      []int
		axis, nidx int
	}{
		{[]int{1}, 0, 1},
		{[]int{7}, 0, 1000},
		{[]int{63, 65}, 0, 7},
		{[]int{63, 65}, 1, 130},
		{[]int{2, 7, 3}, 1, 0},
		{[]int{0, 5}, 1, 3},
	} {
		t.Run(fmt.Sprint(c.shape, c.axis, c.nidx), func(t *testing.T) {
			x := randomData(r, numel(c.shape))
			idx := randomIndex(r, c.nidx, c.shape[c.axis])
			want, _ := CPUTwin{}.IndexSelect(x, c.shape, c.axis, idx)
			got, err := k.IndexSelect(x, c.shape, c.axis, idx)
			if err != nil {
				t.Fatal(err)
			}
			closeTo(t, "selected", got, want, 0)
			src := randomData(r, numel(selectShape(c.shape, c.axis, idx)))
			want, _ = CPUTwin{}.IndexAdd(x, c.shape, c.axis, idx, src)
			got, err = k.IndexAdd(x, c.shape, c.axis, idx, src)
			if err != nil {
				t.Fatal(err)
			}
			closeTo(t, "added", got, want, 0)
		})
	}
}

func TestGatherAndScatterAdd(t *testing.T) {
	k := GPU{D: testDevice(t)}
	r := rand.New(rand.NewPCG(15, 16))
	for _, c := range []struct {
		shape, indexShape []int
		axis              int
	}{
		{[]int{1}, []int{1}, 0},
		{[]int{7}, []int{1000}, 0},
		{[]int{63, 65}, []int{63, 65}, 1},
		{[]int{63, 65}, []int{100, 7}, 0},
		{[]int{4, 5, 6}, []int{2, 9, 3}, 1},
		{[]int{3, 4}, []int{0, 4}, 0},
	} {
		t.Run(fmt.Sprint(c.shape, c.indexShape, c.axis), func(t *testing.T) {
			x := randomData(r, numel(c.shape))
			index := randomIndex(r, numel(c.indexShape), c.shape[c.axis])
			want, _ := CPUTwin{}.Gather(x, c.shape, c.axis, index, c.indexShape)
			got, err := k.Gather(x, c.shape, c.axis, index, c.indexShape)
			if err != nil {
				t.Fatal(err)
			}
			closeTo(t, "gathered", got, want, 0)
			src := randomData(r, numel(c.indexShape))
			want, _ = CPUTwin{}.ScatterAdd(x, c.shape, c.axis, index, c.indexShape, src)
			got, err = k.ScatterAdd(x, c.shape, c.axis, index, c.indexShape, src)
			if err != nil {
				t.Fatal(err)
			}
			closeTo(t, "scattered", got, want, 0)
		})
	}
}

// TestReverseIndex checks the grouping by hand on a small pattern with an
// Outside entry.
func TestReverseIndex(t *testing.T) {
	start, pos := reverseIndex([]int{2, 0, Outside, 2, 1, 2}, 4)
	wantStart, wantPos := []uint32{0, 1, 2, 5, 5}, []uint32{1, 4, 0, 3, 5}
	if fmt.Sprint(start) != fmt.Sprint(wantStart) || fmt.Sprint(pos) != fmt.Sprint(wantPos) {
		t.Errorf("reverseIndex: start %v pos %v, want %v %v", start, pos, wantStart, wantPos)
	}
}
