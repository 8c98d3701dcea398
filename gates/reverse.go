package gates

// ReverseIndex lists, for every input of a layer, the gates that read it: the
// readers of input j are Slot[Start[j]:Start[j+1]], each slot being 2k for
// gate k reading j as its a operand and 2k+1 for reading it as b. The slots
// of one input are in increasing order. Backward passes sum the input
// gradients through it (a gather), so no two gates ever write the same
// element and no atomics or locks are needed.
type ReverseIndex struct {
	Start []int32 // len in+1
	Slot  []int32 // len 2*gates
}

// NewReverseIndex builds the reverse index of w over in inputs. It panics if w
// reads an input outside [0, in).
func NewReverseIndex(w Wiring, in int) ReverseIndex {
	if err := w.Check(in); err != nil {
		panic(err.Error())
	}
	r := ReverseIndex{Start: make([]int32, in+1), Slot: make([]int32, 2*w.Len())}
	for k := range w.A {
		r.Start[w.A[k]+1]++
		r.Start[w.B[k]+1]++
	}
	for j := range in {
		r.Start[j+1] += r.Start[j]
	}
	next := append([]int32(nil), r.Start[:in]...)
	for slot := range int32(2 * w.Len()) {
		j := w.A[slot/2]
		if slot%2 == 1 {
			j = w.B[slot/2]
		}
		r.Slot[next[j]] = slot
		next[j]++
	}
	return r
}
