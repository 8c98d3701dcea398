package autograd

import (
	"math"
	"runtime"
	"testing"
	"unsafe"
)

// TestStoragePoolRecyclesOnlyDeadArraysZeroed: an array that nothing
// refers to any more comes back from the pool for the next request of its
// length, zeroed (Zeros promises zeros); one still held through a slice
// (Data32, after its tensor is gone) is never handed out again while held.
func TestStoragePoolRecyclesOnlyDeadArraysZeroed(t *testing.T) {
	const n = 3 * poolMinBytes / 4
	first := func(s []float32) uintptr { return uintptr(unsafe.Pointer(&s[0])) }

	held := Zeros(Float32, n).Data32() // its tensor is garbage at once
	for i := range held {
		held[i] = 1
	}
	heldAt := first(held)
	dead := Zeros(Float32, n)
	for i := range dead.f32 {
		dead.f32[i] = 2
	}
	deadAt := first(dead.f32)
	dead = nil
	collect()
	collect()

	got := Zeros(Float32, n)
	if at := first(got.f32); at == heldAt {
		t.Fatal("the pool lent an array still held through a slice from Data32")
	} else if at != deadAt {
		t.Logf("the dead array did not come back (another test's garbage may have); got %x, dead %x", at, deadAt)
	}
	for i, v := range got.f32 {
		if v != 0 {
			t.Fatalf("element %d of a recycled array is %v, want 0", i, v)
		}
	}
	for i, v := range held {
		if v != 1 {
			t.Fatalf("element %d of the held array changed to %v", i, v)
		}
	}
	runtime.KeepAlive(held)
}

// TestFreeUnusedMemoryEmptiesThePool: after FreeUnusedMemory the pool
// holds no free array, even of tensors that died just before it.
func TestFreeUnusedMemoryEmptiesThePool(t *testing.T) {
	for range 10 {
		Zeros(Float32, 5*poolMinBytes/4)
	}
	FreeUnusedMemory()
	pool32.mu.Lock()
	free := pool32.freeBytes
	pool32.mu.Unlock()
	if free != 0 {
		t.Fatalf("the float32 pool keeps %d free bytes after FreeUnusedMemory", free)
	}
}

// TestDirtyOutputsFullyWritten: Conv2d, MaxPool2d, MatMul, the binary
// ops and the elementwise maps take their outputs from the pool without
// zeroing them; with the pool's free arrays of those lengths full of NaN,
// the results still match the definition.
func TestDirtyOutputsFullyWritten(t *testing.T) {
	const n, c, o, h = 2, 3, 4, 80 // outputs of 2·4·80·80 and 2·3·40·40 elements, both pooled
	poison := func(shape ...int) {
		var keep []*Tensor
		for range 4 {
			p := Zeros(Float32, shape...)
			for i := range p.f32 {
				p.f32[i] = float32(math.NaN())
			}
			keep = append(keep, p)
		}
		keep = nil
		collect()
	}
	x := Zeros(Float32, n, c, h, h)
	for i := range x.f32 {
		x.f32[i] = float32(i%7) - 3
	}
	w := Zeros(Float32, o, c, 3, 3)
	for i := range w.f32 {
		w.f32[i] = float32(i%5) - 2
	}
	cfg := Conv2dConfig{Padding: [2]int{1, 1}}
	poison(n, o, h, h)
	got := Conv2d(x, w, nil, cfg)
	want, _, _ := naiveConv2d(x, w, make([]float64, o), cfg)
	for i, v := range want {
		if float64(got.f32[i]) != v { // small integers: exact in float32
			t.Fatalf("Conv2d element %d: %v, want %v", i, got.f32[i], v)
		}
	}
	// Products (k = 0 too), broadcast binary ops and elementwise maps.
	a, b := Full(Float32, 1, 100, 3), Full(Float32, 2, 3, 100)
	for _, k := range []int{3, 0} {
		poison(100, 100)
		got := MatMul(Narrow(a, 1, 0, k), Narrow(b, 0, 0, k))
		for i, v := range got.f32 {
			if v != float32(2*k) {
				t.Fatalf("MatMul with %d terms, element %d: %v, want %v", k, i, v, 2*k)
			}
		}
	}
	poison(100, 100)
	sum := Add(Full(Float32, 1, 100, 1), Full(Float32, 2, 1, 100))
	poison(100, 100)
	e := Exp(Zeros(Float32, 100, 100))
	for i := range sum.f32 {
		if sum.f32[i] != 3 || e.f32[i] != 1 {
			t.Fatalf("element %d: Add %v (want 3), Exp %v (want 1)", i, sum.f32[i], e.f32[i])
		}
	}
	poison(n, c, h/2, h/2)
	poison(n * c * h / 2 * h / 2) // the indices' length too (as float32 arrays of another pool: harmless)
	pooled := MaxPool2d(x, 2, 0, 0)
	for i, v := range pooled.f32 {
		if v != v {
			t.Fatalf("MaxPool2d element %d is NaN: a recycled output not written", i)
		}
	}
}
