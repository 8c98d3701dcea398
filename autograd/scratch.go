package autograd

import "sync"

// Scratch buffers: the working memory of a kernel that no tensor ever
// holds (im2col columns, gathered gradients, per-block partial sums),
// taken from a pool and given back when the kernel returns, so that a
// training loop does not allocate them step after step. Tensors are not
// pooled on the CPU: a tensor's storage may be shared by views and kept by
// the caller, and nothing tracks its last user (the GPU device knows it
// through its storage objects, see gpu/autograd_pool.go).

var scratch32, scratch64 sync.Pool // of *[]float32, *[]float64

// getScratch returns a buffer of n elements, its contents undefined, and
// the function that gives it back.
func getScratch[T Float](n int) *[]T {
	pool := &scratch32
	var zero T
	if _, ok := any(zero).(float64); ok {
		pool = &scratch64
	}
	if p, ok := pool.Get().(*[]T); ok {
		if cap(*p) >= n {
			*p = (*p)[:n]
			return p
		}
		pool.Put(p)
	}
	s := make([]T, n)
	return &s
}

// putScratch gives back a buffer from getScratch.
func putScratch[T Float](p *[]T) {
	var zero T
	if _, ok := any(zero).(float64); ok {
		scratch64.Put(p)
		return
	}
	scratch32.Put(p)
}
