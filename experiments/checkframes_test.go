package experiments

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/dlca"
)

// TestCheckRolloutKeepsBoundedFrames: a long check keeps at most
// MaxCheckFrames+1 states, each the state of a rollout keeping all of
// them at the same step (every CheckStride-th, the last always), and the
// states asked for by step; a short one keeps every state. The estimate
// grows with the grid, not with the steps past MaxCheckFrames.
func TestCheckRolloutKeepsBoundedFrames(t *testing.T) {
	e, err := Get("checkerboard-small")
	if err != nil {
		t.Fatal(err)
	}
	m, err := dlca.New(e.Model, autograd.Float32)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 0))
	for _, l := range m.Layers() {
		for i := range l.Logits.Len() {
			l.Logits.SetAt(i, 4*rng.NormFloat64())
		}
	}
	for _, steps := range []int{40, 1500} {
		all := Rollout(e, m, 12, steps, 4, steps)
		kept, at := checkRollout(e, m, 12, steps, 4, steps, steps/2)
		stride := CheckStride(steps)
		want := []int{}
		for s := 0; s <= steps; s += stride {
			want = append(want, s)
		}
		if want[len(want)-1] != steps {
			want = append(want, steps)
		}
		if len(kept) != len(want) || len(kept) > MaxCheckFrames+1 || (steps <= MaxCheckFrames && len(kept) != steps+1) {
			t.Fatalf("%d steps: %d states kept, want %d (at most %d)", steps, len(kept), len(want), MaxCheckFrames+1)
		}
		for i, s := range want {
			if fmt.Sprint(kept[i].Cells()) != fmt.Sprint(all[s].Cells()) {
				t.Fatalf("%d steps: kept state %d differs from the rollout's step %d", steps, i, s)
			}
		}
		if fmt.Sprint(at[steps/2].Cells()) != fmt.Sprint(all[steps/2].Cells()) {
			t.Errorf("%d steps: the state asked for at step %d differs", steps, steps/2)
		}
	}
	long, longer := generaliseCheck(64, 10000), generaliseCheck(64, 1000000)
	if a, b := CheckMemory(long, 8, 1), CheckMemory(longer, 8, 1); b > a+8*1000000 {
		t.Errorf("a check of 10^6 steps is estimated at %d bytes, of 10^4 at %d: more than a curve's 8 bytes a step apart", b, a)
	}
	if a, b := CheckMemory(generaliseCheck(64, 20), 8, 1), CheckMemory(generaliseCheck(128, 20), 8, 1); b < 4*a*9/10 {
		t.Errorf("a grid twice as wide is estimated at %d bytes against %d: want about 4 times", b, a)
	}
}
