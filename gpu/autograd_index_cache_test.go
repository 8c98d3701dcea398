package gpu

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/gates"
)

// TestCachedWiringsNeverShared holds three wirings of one size on one
// device to the CPU, forward and backward, with the same logits, so that
// only the wiring tells them apart: two layers' wirings, then the first
// layer's rewritten in place (same slices, same address, new contents).
// A cache keyed by size, or by where the wiring lives, would hand the
// second and third the first one's index.
func TestCachedWiringsNeverShared(t *testing.T) {
	const in, out = 12, 10
	init := gates.Init{Gaussian: true, Std: 2}
	l1 := gates.NewLayer("first", in, gates.RandomWiring(in, out, rand.New(rand.NewPCG(1, 1))), 1, init, autograd.Float32, rand.New(rand.NewPCG(1, 2)))
	l2 := gates.NewLayer("second", in, gates.RandomWiring(in, out, rand.New(rand.NewPCG(2, 1))), 1, init, autograd.Float32, rand.New(rand.NewPCG(1, 2)))
	if slices.Equal(l1.Wiring.A, l2.Wiring.A) && slices.Equal(l1.Wiring.B, l2.Wiring.B) {
		t.Fatal("the two wirings are equal: pick other seeds")
	}
	x := randTensor(5, 0, 1, 9, in)
	check := func(l *gates.Layer) {
		t.Helper()
		checkParity(t, tolReduce, func(xs ...*autograd.Tensor) *autograd.Tensor {
			l.Logits = xs[1]
			return l.Forward(xs[0])
		}, x, l1.Logits)
	}
	check(l1)
	check(l2)
	rewired := gates.RandomWiring(in, out, rand.New(rand.NewPCG(3, 1)))
	copy(l1.Wiring.A, rewired.A)
	copy(l1.Wiring.B, rewired.B)
	check(l1)
}

// TestIndexUploadedOnce counts the writes into storage buffers of a gate
// layer's forward and backward pass, and of gathers and scatters, on a
// device of their own: the second application of a wiring, and a gather
// pattern met again (in a new slice, as autograd computes it afresh), write
// nothing, and IndexSelect's gradient, IndexAdd, reuses its offsets.
func TestIndexUploadedOnce(t *testing.T) {
	dev := newAutograd(t)
	writes := func() int {
		w, _, _ := dev.Uploaded()
		return w
	}
	l := gates.NewLayer("once", 6, gates.RandomWiring(6, 5, rand.New(rand.NewPCG(1, 1))), 2, gates.DefaultInit(), autograd.Float32, nil)
	if err := l.Logits.MoveTo(dev); err != nil {
		t.Fatal(err)
	}
	l.Logits.SetRequiresGrad(true)
	x, err := randTensor(3, 0, 1, 4, 6).To(dev)
	if err != nil {
		t.Fatal(err)
	}
	x.SetRequiresGrad(true)
	apply := func() {
		t.Helper()
		if err := autograd.Sum(l.Forward(x), false).Backward(); err != nil {
			t.Fatal(err)
		}
	}
	w0 := writes()
	apply()
	if got := writes() - w0; got != 3 {
		t.Errorf("first pass of the gate layer: %d writes, want 3 (the wiring and its reverse index)", got)
	}
	w0 = writes()
	apply()
	if got := writes() - w0; got != 0 {
		t.Errorf("second pass of the gate layer: %d writes, want none (the wiring was uploaded again)", got)
	}

	v, err := randTensor(4, -1, 1, 7, 3).To(dev)
	if err != nil {
		t.Fatal(err)
	}
	w0 = writes()
	autograd.IndexSelect(v, 0, []int{6, 0, 2})
	if got := writes() - w0; got != 3 {
		t.Errorf("first IndexSelect: %d writes, want 3 (the offsets and their reverse index)", got)
	}
	w0 = writes()
	autograd.IndexSelect(v, 0, []int{6, 0, 2})
	autograd.IndexAdd(v, 0, []int{6, 0, 2}, autograd.IndexSelect(v, 0, []int{6, 0, 2}))
	if got := writes() - w0; got != 0 {
		t.Errorf("IndexSelect and IndexAdd of the same indices again: %d writes, want none", got)
	}
	w0 = writes()
	got, err := autograd.IndexSelect(v, 0, []int{6, 1, 2}).To(autograd.CPU)
	if err != nil {
		t.Fatal(err)
	}
	if w := writes() - w0; w != 3 {
		t.Errorf("IndexSelect of other indices of the same number: %d writes, want 3", w)
	}
	want, err := autograd.IndexSelect(v, 0, []int{6, 1, 2}).To(autograd.CPU)
	if err != nil {
		t.Fatal(err)
	}
	if cpu := autograd.IndexSelect(toCPU(t, v), 0, []int{6, 1, 2}); !slices.Equal(got.Float64s(), cpu.Float64s()) || !slices.Equal(want.Float64s(), cpu.Float64s()) {
		t.Errorf("IndexSelect on the GPU %v and again %v, on the CPU %v", got.Float64s(), want.Float64s(), cpu.Float64s())
	}
}

// TestIndexCacheEvicts fills the cache past indexCacheEntries: it keeps
// that many, drops the least recently used first (found again, it is
// uploaded again) and keeps one used throughout.
func TestIndexCacheEvicts(t *testing.T) {
	dev := newAutograd(t)
	none := func() (start, pos []uint32) { return []uint32{0, 1}, []uint32{0} }
	lookup := func(i int) {
		dev.cachedIndex("test", []uint32{uint32(i)}, 1, none)
	}
	lookup(0)
	lookup(1)
	for i := 2; i < indexCacheEntries+10; i++ {
		lookup(0) // the most recently used, never evicted
		lookup(i)
	}
	if err := dev.Err(); err != nil {
		t.Fatal(err)
	}
	if dev.cache.n != indexCacheEntries {
		t.Errorf("%d entries, want %d", dev.cache.n, indexCacheEntries)
	}
	for _, c := range []struct {
		i      int
		writes int
	}{{0, 0}, {indexCacheEntries + 9, 0}, {1, 3}} {
		w0, _, _ := dev.Uploaded()
		lookup(c.i)
		if w1, _, _ := dev.Uploaded(); w1-w0 != c.writes {
			t.Errorf("index %d looked up again: %d writes, want %d", c.i, w1-w0, c.writes)
		}
	}
}
