package gpu

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// Each shape op on the GPU must give exactly autograd's result: they only
// move values.

func TestPermute(t *testing.T) {
	k := GPU{D: testDevice(t)}
	r := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct{ shape, perm []int }{
		{[]int{}, []int{}},
		{[]int{1}, []int{0}},
		{[]int{7, 65}, []int{1, 0}},
		{[]int{63, 1, 5}, []int{2, 0, 1}},
		{[]int{2, 3, 0, 4}, []int{3, 2, 1, 0}},
		{[]int{2, 3, 2, 3, 2, 3, 2}, []int{6, 5, 4, 3, 2, 1, 0}},
		{[]int{1000, 2, 3}, []int{1, 2, 0}},
	} {
		t.Run(fmt.Sprint(c.shape, c.perm), func(t *testing.T) {
			x := randomData(r, numel(c.shape))
			want, _ := CPUTwin{}.Permute(x, c.shape, c.perm)
			got, err := k.Permute(x, c.shape, c.perm)
			if err != nil {
				t.Fatal(err)
			}
			closeTo(t, "permuted", got, want, 0)
		})
	}
}

func TestExpandAndSumTo(t *testing.T) {
	k := GPU{D: testDevice(t)}
	r := rand.New(rand.NewPCG(7, 8))
	for _, c := range []struct{ shape, to []int }{
		{[]int{}, []int{}},
		{[]int{}, []int{7, 65}},
		{[]int{1}, []int{1000}},
		{[]int{65}, []int{7, 65}},
		{[]int{7, 1}, []int{3, 7, 63}},
		{[]int{2, 1, 3, 1}, []int{4, 2, 5, 3, 6}},
		{[]int{1, 3}, []int{0, 3}},
		{[]int{0, 1}, []int{0, 5}},
	} {
		t.Run(fmt.Sprint(c.shape, c.to), func(t *testing.T) {
			x := randomData(r, numel(c.shape))
			want, _ := CPUTwin{}.Expand(x, c.shape, c.to)
			got, err := k.Expand(x, c.shape, c.to)
			if err != nil {
				t.Fatal(err)
			}
			closeTo(t, "expanded", got, want, 0)
			// SumTo is Expand's gradient: sum a gradient of the expanded
			// shape back.
			g := randomData(r, numel(c.to))
			wantSum, _ := CPUTwin{}.SumTo(g, c.to, c.shape)
			gotSum, err := k.SumTo(g, c.to, c.shape)
			if err != nil {
				t.Fatal(err)
			}
			closeTo(t, "summed", gotSum, wantSum, 1e-4)
		})
	}
}

func TestNarrowAndPad(t *testing.T) {
	k := GPU{D: testDevice(t)}
	r := rand.New(rand.NewPCG(9, 10))
	for _, c := range []struct {
		shape               []int
		axis, start, length int
		before, after       []int
	}{
		{[]int{7}, 0, 3, 4, []int{1}, []int{0}},
		{[]int{63, 65}, 1, 64, 1, []int{2, 0}, []int{-1, 3}},
		{[]int{5, 1000, 2}, 1, 7, 0, []int{0, -7, 1}, []int{1, -63, 1}},
		{[]int{2, 0, 3}, 2, 1, 2, []int{1, 1, 1}, []int{1, 1, 1}},
	} {
		t.Run(fmt.Sprint(c.shape, c.axis, c.start, c.length, c.before, c.after), func(t *testing.T) {
			x := randomData(r, numel(c.shape))
			want, _ := CPUTwin{}.Narrow(x, c.shape, c.axis, c.start, c.length)
			got, err := k.Narrow(x, c.shape, c.axis, c.start, c.length)
			if err != nil {
				t.Fatal(err)
			}
			closeTo(t, "narrowed", got, want, 0)
			want, _ = CPUTwin{}.PadZero(x, c.shape, c.before, c.after)
			got, err = k.PadZero(x, c.shape, c.before, c.after)
			if err != nil {
				t.Fatal(err)
			}
			closeTo(t, "padded", got, want, 0)
		})
	}
}

func TestCatAndStack(t *testing.T) {
	k := GPU{D: testDevice(t)}
	r := rand.New(rand.NewPCG(11, 12))
	for _, c := range []struct {
		shapes [][]int
		axis   int
	}{
		{[][]int{{7}}, 0},
		{[][]int{{7, 3}, {0, 3}, {65, 3}}, 0},
		{[][]int{{2, 1, 5}, {2, 63, 5}, {2, 7, 5}}, 1},
		{[][]int{{4, 1}, {4, 1}}, 1},
	} {
		t.Run(fmt.Sprint(c.shapes, c.axis), func(t *testing.T) {
			xs := make([][]float32, len(c.shapes))
			for i, s := range c.shapes {
				xs[i] = randomData(r, numel(s))
			}
			want, _ := CPUTwin{}.Cat(xs, c.shapes, c.axis)
			got, err := k.Cat(xs, c.shapes, c.axis)
			if err != nil {
				t.Fatal(err)
			}
			closeTo(t, "joined", got, want, 0)
			same := make([][]float32, len(xs))
			for i := range same {
				same[i] = xs[len(xs)-1]
			}
			shape := c.shapes[len(xs)-1]
			for axis := 0; axis <= len(shape); axis++ {
				want, _ = CPUTwin{}.Stack(same, shape, axis)
				got, err = k.Stack(same, shape, axis)
				if err != nil {
					t.Fatal(err)
				}
				closeTo(t, fmt.Sprint("stacked on axis ", axis), got, want, 0)
			}
		})
	}
}
