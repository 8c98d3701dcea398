package buffers

import (
	"runtime"
	"testing"
)

// TestListSurvivesCollections: a slice given back is the one handed out
// next, after any number of collections (a sync.Pool loses it in two), and
// a request longer than the kept slice gets a new one of its length.
func TestListSurvivesCollections(t *testing.T) {
	var l List[float32]
	p := l.Get(100)
	if len(*p) != 100 {
		t.Fatalf("Get(100) gave %d elements", len(*p))
	}
	(*p)[0] = 7
	l.Put(p)
	runtime.GC()
	runtime.GC()
	runtime.GC()
	q := l.Get(50)
	if q != p || len(*q) != 50 || (*q)[0] != 7 {
		t.Fatalf("after collections Get(50) gave %p (len %d), want the slice given back %p", q, len(*q), p)
	}
	l.Put(q)
	r := l.Get(200)
	if r == p || len(*r) != 200 {
		t.Fatalf("Get(200) gave the kept slice of capacity 100, or %d elements", len(*r))
	}
	// The short one stays kept, behind the longer one given back after it.
	l.Put(r)
	if got := l.Get(100); got != r {
		t.Fatal("Get(100) did not give the latest slice long enough")
	}
	if got := l.Get(100); got != p {
		t.Fatal("Get(100) did not give the short slice kept behind the long one")
	}
}

// TestListSkipsShortSlices: two sizes asked for in turn (a product's
// packing buffers) each find their own slice again, with nothing new made.
func TestListSkipsShortSlices(t *testing.T) {
	var l List[float32]
	a, b := l.Get(1000), l.Get(10)
	l.Put(a)
	l.Put(b) // the short one on top
	if got := l.Get(1000); got != a {
		t.Fatal("Get(1000) made a new slice where a long enough one was kept under a short one")
	}
	if got := l.Get(10); got != b {
		t.Fatal("Get(10) did not find the short slice")
	}
}

// TestListHoldsAtMostMax: a list given back more than Max slices keeps Max.
func TestListHoldsAtMostMax(t *testing.T) {
	var l List[byte]
	for range Max + 10 {
		s := make([]byte, 1)
		l.Put(&s)
	}
	if len(l.free) != Max {
		t.Fatalf("list holds %d slices, want %d", len(l.free), Max)
	}
}

// TestListClear: after Clear, Get makes a new slice.
func TestListClear(t *testing.T) {
	var l List[int]
	p := l.Get(4)
	l.Put(p)
	l.Clear()
	if q := l.Get(4); q == p {
		t.Fatal("Get after Clear returned the slice kept before it")
	}
}
