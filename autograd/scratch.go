package autograd

import "github.com/dlca/dlca/internal/buffers"

// Scratch buffers: the working memory of a kernel that no tensor ever
// holds (im2col columns, gathered gradients, per-block partial sums),
// taken from a free list and given back when the kernel returns, so that a
// training loop does not allocate them step after step. Tensors' own
// arrays come from the storage pool (storage_pool.go), which learns of
// their last use from the collector.

var scratch32 buffers.List[float32]
var scratch64 buffers.List[float64]

// getScratch returns a buffer of n elements, its contents undefined; give
// it back with putScratch.
func getScratch[T Float](n int) *[]T {
	var zero T
	if _, ok := any(zero).(float64); ok {
		return any(scratch64.Get(n)).(*[]T)
	}
	return any(scratch32.Get(n)).(*[]T)
}

// putScratch gives back a buffer from getScratch.
func putScratch[T Float](p *[]T) {
	var zero T
	if _, ok := any(zero).(float64); ok {
		scratch64.Put(any(p).(*[]float64))
		return
	}
	scratch32.Put(any(p).(*[]float32))
}
