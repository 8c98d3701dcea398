package autograd

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"unsafe"

	internalgemm "github.com/dlca/dlca/internal/gemm"
)

// The CPU's tensor storage pool: the element arrays of CPU tensors (made
// by Zeros, Empty, Clone and every op through them), and max pooling's
// window indices, are lent from a pool and come back to it when the
// garbage collector finds them unreachable, so that a training loop, whose
// steps make tensors of the same sizes over and over, stops allocating
// after its first steps. What a fresh allocation of megabytes costs, and
// the pool saves, is not the allocation itself but the collections it
// causes, the zeroing and the page faults of memory the runtime had given
// back to the system: about an eighth of a CNN training step
// (docs/PERFORMANCE.md, issue 32, round two).
//
// Whether an array is still in use is the collector's to say, not the
// graph's: a tensor's storage may be shared by views, kept by the caller
// after its graph is freed, or held as a slice from Data32, and every one
// of those references keeps the array reachable. Each lent array carries a
// finalizer; when a collection finds the array unreachable, the finalizer
// runs, and instead of letting the memory go it puts the array on the free
// list of its length. So a tensor's memory can never be reused while
// anything refers to it, and nothing needs to release a tensor by hand.
//
// Collections: a finalizer runs only after a collection, and a loop that
// takes its buffers from the pool allocates too little for the runtime to
// start one. So take runs the collector itself when it finds no free array
// and at least max(poolGarbage, what was lent after the last collection,
// half the heap the collector scans) has been lent since, as the GPU device's pool does
// (gpu/autograd_pool.go).
// Free arrays not asked for over two such collections are dropped, and the
// free lists hold at most poolMaxFree bytes (an eighth of the memory limit
// if less), so a process that moves on to other shapes does not keep the
// old ones; FreeUnusedMemory lets go of them all.
//
// Arrays of up to poolMinBytes (the runtime's small objects, which its
// size classes serve faster than a finalizer's round trip: with 5 KB
// arrays lent by the pool, softmax and cross-entropy of [128, 10] took a
// fifth longer) and of over poolMaxLen elements (rare, and not worth
// holding) are plain allocations.

const (
	poolMinBytes = 32 << 10  // the runtime's largest small object
	poolMaxLen   = 1 << 24   // elements: 64 MiB of float32
	poolGarbage  = 4 << 20   // bytes
	poolMaxFree  = 256 << 20 // bytes
)

// storagePool lends arrays of one element type. Its zero value is empty and
// ready.
type storagePool[T poolElem] struct {
	mu         sync.Mutex
	free       map[int]*freeArrays[T] // by length
	freeBytes  int
	lent       int  // bytes lent and not yet back (live, or dead and not yet found)
	liveAtGC   int  // bytes lent after the last collection take ran; -1: to measure
	collecting bool // a take is running the collector
	epoch      int  // collections take has run
	drain      bool // FreeUnusedMemory is running: dead arrays are let go
}

// freeArrays are the free arrays of one length, and the epoch in which one
// was last taken or given back.
type freeArrays[T poolElem] struct {
	arrays [][]T
	used   int
}

// poolElem is an element type the pool lends: tensors' and max pooling's
// window indices.
type poolElem interface{ ~float32 | ~float64 | ~int32 }

// maxFree is the most bytes the free lists of one pool keep:
// min(poolMaxFree, an eighth of the runtime's memory limit), read at each
// collection take runs, so that under debug.SetMemoryLimit (internal/memlimit)
// the free arrays, which the collector cannot free, stay a small part of it.
var maxFree atomic.Int64

func init() { maxFree.Store(poolMaxFree) }

var pool32 storagePool[float32]
var pool64 storagePool[float64]
var poolIndices storagePool[int32]

// allocStorage returns a zeroed array of n elements from the pool of its
// element type.
func allocStorage[T Float](n int) []T {
	var zero T
	if _, ok := any(zero).(float64); ok {
		return any(pool64.take(n)).([]T)
	}
	return any(pool32.take(n)).([]T)
}

// emptyFor returns a tensor of the given shape for a kernel that writes
// every element: on the CPU its array comes from the pool without being
// zeroed first (its contents are undefined); on a device it is Empty.
func emptyFor(dev Device, dtype DType, shape ...int) *Tensor {
	if dev != nil && dev != CPU {
		return newOn(dev, dtype, shape)
	}
	n := numel(shape)
	if dtype == Float64 {
		return New64(pool64.takeDirty(n), shape...)
	}
	return New(pool32.takeDirty(n), shape...)
}

// take returns a zeroed array of n elements: a free one, or one found free
// after running the collector (see the rule above), or a new one.
func (p *storagePool[T]) take(n int) []T {
	s, recycled := p.lend(n)
	if recycled {
		clear(s)
	}
	return s
}

// takeDirty is take without zeroing: a recycled array holds what its last
// tensor left.
func (p *storagePool[T]) takeDirty(n int) []T {
	s, _ := p.lend(n)
	return s
}

// lend returns an array of n elements and whether it was recycled (else it
// is new, and zero).
func (p *storagePool[T]) lend(n int) ([]T, bool) {
	size := n * int(unsafe.Sizeof(T(0)))
	if size <= poolMinBytes || n > poolMaxLen {
		return make([]T, n), false
	}
	p.mu.Lock()
	if p.liveAtGC < 0 { // the finalizers of the last collection have had their turn
		p.liveAtGC = p.lent
	}
	s := p.takeFree(n)
	if s == nil && !p.collecting && p.lent >= p.liveAtGC+max(poolGarbage, p.liveAtGC, heapScan()/2) {
		p.collecting = true
		p.mu.Unlock()
		collect()
		p.mu.Lock()
		p.collecting = false
		p.epoch++
		p.liveAtGC = -1
		p.dropStale()
		s = p.takeFree(n)
	}
	p.lent += size
	p.mu.Unlock()
	recycled := s != nil
	if !recycled {
		s = make([]T, n)
	}
	runtime.SetFinalizer(&s[0], func(first *T) { p.giveBack(unsafe.Slice(first, n)) })
	return s, recycled
}

// heapScan is the heap the collector has to scan, in bytes: a forced
// collection costs time in proportion to it (arrays of numbers, such as a
// data set or the pool's own, are not scanned), so take runs one no sooner
// than after half that much has been lent (at most twice as often as the
// runtime's own pacing at GOGC=100 would for such a heap). A threshold
// grown with arrays that are not scanned would only spread the pool's
// arrays over more memory than the caches hold.
func heapScan() int {
	sample := []metrics.Sample{{Name: "/gc/scan/heap:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int(sample[0].Value.Uint64())
}

// collect runs the collector and lets the finalizer goroutine give the
// dead arrays back: it waits until that goroutine has run a sentinel's
// finalizer queued by the same collection (the others of the collection
// run around it), then yields once more.
func collect() {
	done := make(chan struct{})
	sentinel := new([16]byte) // not a tiny allocation, so it is its own object
	runtime.SetFinalizer(sentinel, func(*[16]byte) { close(done) })
	sentinel = nil
	runtime.GC()
	maxFree.Store(min(poolMaxFree, debug.SetMemoryLimit(-1)/8))
	for range 1000 {
		select {
		case <-done:
			runtime.Gosched()
			return
		default:
			runtime.Gosched()
		}
	}
}

// takeFree returns a free array of n elements, or nil. p.mu is held.
func (p *storagePool[T]) takeFree(n int) []T {
	f := p.free[n]
	if f == nil || len(f.arrays) == 0 {
		return nil
	}
	s := f.arrays[len(f.arrays)-1]
	f.arrays[len(f.arrays)-1] = nil
	f.arrays = f.arrays[:len(f.arrays)-1]
	f.used = p.epoch
	p.freeBytes -= len(s) * int(unsafe.Sizeof(T(0)))
	return s
}

// giveBack is the finalizer of a lent array the collector found
// unreachable: it goes on the free list, or, when the free lists are full,
// is let go (it has no finalizer now, so the next collection frees it).
func (p *storagePool[T]) giveBack(s []T) {
	size := len(s) * int(unsafe.Sizeof(T(0)))
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lent -= size
	if p.drain || p.freeBytes+size > int(maxFree.Load()) {
		return
	}
	if p.free == nil {
		p.free = map[int]*freeArrays[T]{}
	}
	f := p.free[len(s)]
	if f == nil {
		f = &freeArrays[T]{}
		p.free[len(s)] = f
	}
	f.arrays = append(f.arrays, s)
	f.used = p.epoch
	p.freeBytes += size
}

// dropStale lets go of the free arrays of every length not taken or given
// back in the last two collections. p.mu is held.
func (p *storagePool[T]) dropStale() {
	for n, f := range p.free {
		if f.used < p.epoch-2 {
			p.freeBytes -= n * len(f.arrays) * int(unsafe.Sizeof(T(0)))
			delete(p.free, n)
		}
	}
}

// FreeUnusedMemory gives the CPU storage pool's free arrays, and the
// kernels' kept scratch and packing buffers, back to the runtime, after a
// collection that lets the arrays of dead tensors come
// back to the pool first, as torch.cuda.empty_cache does for PyTorch's
// caching allocator; the next collection frees them. Nothing needs it for
// correctness: it is for a program that has finished with large tensors,
// and for measuring the live heap without the pool's free arrays.
func FreeUnusedMemory() {
	scratch32.Clear()
	scratch64.Clear()
	internalgemm.FreeBuffers()
	pool32.draining(true)
	pool64.draining(true)
	poolIndices.draining(true)
	collect()
	collect() // the finalizers of the first one's stragglers
	pool32.draining(false)
	pool64.draining(false)
	poolIndices.draining(false)
}

// draining sets whether dead arrays are let go rather than kept, and lets
// go of the free ones when it starts.
func (p *storagePool[T]) draining(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.drain = on
	if on {
		p.free = nil
		p.freeBytes = 0
	}
}
