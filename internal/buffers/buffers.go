package buffers

import "sync"

// Max is the most slices a List keeps: enough for every goroutine of a
// kernel on a large machine to hold two.
const Max = 256

// List is a free list of slices of T. Its zero value is empty and ready;
// it is safe for concurrent use.
type List[T any] struct {
	mu   sync.Mutex
	free []*[]T
}

// Get returns a slice of n elements, its contents undefined: a kept one
// when one is long enough (a shorter one is dropped), else a new one. Give
// it back with Put.
func (l *List[T]) Get(n int) *[]T {
	l.mu.Lock()
	var p *[]T
	if k := len(l.free); k > 0 {
		p = l.free[k-1]
		l.free[k-1] = nil
		l.free = l.free[:k-1]
	}
	l.mu.Unlock()
	if p == nil || cap(*p) < n {
		s := make([]T, n)
		return &s
	}
	*p = (*p)[:n]
	return p
}

// Put gives back a slice from Get; it is dropped when the list is full.
func (l *List[T]) Put(p *[]T) {
	l.mu.Lock()
	if len(l.free) < Max {
		l.free = append(l.free, p)
	}
	l.mu.Unlock()
}

// Clear lets go of every kept slice.
func (l *List[T]) Clear() {
	l.mu.Lock()
	clear(l.free)
	l.free = l.free[:0]
	l.mu.Unlock()
}
