package buffers

import (
	"slices"
	"sync"
)

// Max is the most slices a List keeps: enough for every goroutine of a
// kernel on a large machine to hold two.
const Max = 256

// List is a free list of slices of T. Its zero value is empty and ready;
// it is safe for concurrent use.
type List[T any] struct {
	mu   sync.Mutex
	free []*[]T
}

// Get returns a slice of n elements, its contents undefined: the most
// recently given back of those long enough, else a new one. Give it back
// with Put.
func (l *List[T]) Get(n int) *[]T {
	l.mu.Lock()
	for i := len(l.free) - 1; i >= 0; i-- {
		if p := l.free[i]; cap(*p) >= n {
			l.free = slices.Delete(l.free, i, i+1) // clears the vacated slot
			l.mu.Unlock()
			*p = (*p)[:n]
			return p
		}
	}
	l.mu.Unlock()
	s := make([]T, n)
	return &s
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
