package autograd

import (
	"runtime"
	"testing"
	"unsafe"
)

// TestStoragePoolRecyclesOnlyDeadArraysZeroed: an array that nothing
// refers to any more comes back from the pool for the next request of its
// length, zeroed (Zeros promises zeros); one still held through a slice
// (Data32, after its tensor is gone) is never handed out again while held.
func TestStoragePoolRecyclesOnlyDeadArraysZeroed(t *testing.T) {
	const n = 3 * poolMinLen
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
		Zeros(Float32, 5*poolMinLen)
	}
	FreeUnusedMemory()
	pool32.mu.Lock()
	free := pool32.freeBytes
	pool32.mu.Unlock()
	if free != 0 {
		t.Fatalf("the float32 pool keeps %d free bytes after FreeUnusedMemory", free)
	}
}
