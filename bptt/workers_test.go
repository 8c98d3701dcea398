package bptt_test

import (
	"math"
	"runtime"
	"testing"

	"github.com/dlca/dlca/bptt"
)

// TestWorkersTrainTheSameModel trains the small checkerboard (its
// perception runs over 8 blocks of rows, so every worker gets some) for 8
// iterations with Setup.Workers 1, 3 and 0 (the engine times one worker
// against GOMAXPROCS over iterations 2 to 7, then keeps the faster): the
// logits must agree bit for bit, and the engine must have made its choice.
func TestWorkersTrainTheSameModel(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	var first []uint64
	for _, workers := range []int{1, 3, 0} {
		e, m := experimentModel(t, "checkerboard-small")
		s := e.Setup(m)
		s.Workers = workers
		eng, err := bptt.NewCPU(s)
		if err != nil {
			t.Fatal(err)
		}
		rng := newRand(3)
		for range 8 {
			if _, err := eng.Iterate(e.Source()(rng)); err != nil {
				t.Fatal(err)
			}
		}
		if w := eng.Workers(); workers > 0 && w != workers || workers == 0 && w != 1 && w != 2 {
			t.Errorf("Workers %d: the engine runs on %d", workers, w)
		}
		trained, _ := eng.Model()
		var bits []uint64
		for _, p := range trained.Params() {
			for _, v := range p.Float64s() {
				bits = append(bits, math.Float64bits(v))
			}
		}
		if first == nil {
			first = bits
			continue
		}
		for i := range bits {
			if bits[i] != first[i] {
				t.Fatalf("Workers %d: logit %d differs from one worker's", workers, i)
			}
		}
	}
	e, m := experimentModel(t, "checkerboard-small")
	s := e.Setup(m)
	s.Workers = -1
	if err := s.Validate(); err == nil {
		t.Error("Workers -1 accepted")
	}
}
