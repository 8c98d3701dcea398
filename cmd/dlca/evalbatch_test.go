package main

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dlca/dlca/internal/state"
)

// writeStates writes n random 0/1 states [h, w, c] to dir: each alone as
// one.b.npy, and all as batch.npy [n, h, w, c].
func writeStates(t *testing.T, dir string, n, h, w, c int) (batch string, one []string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(9, 0))
	var all []uint8
	for b := range n {
		s := &state.State{Height: h, Width: w, Channels: c, Values: make([]float32, h*w*c)}
		for i := range s.Values {
			s.Values[i] = float32(rng.IntN(2))
			all = append(all, uint8(s.Values[i]))
		}
		path := filepath.Join(dir, "one."+string(rune('0'+b))+".npy")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := state.WriteNPY(f, s, state.Uint8); err != nil {
			t.Fatal(err)
		}
		f.Close()
		one = append(one, path)
	}
	batch = filepath.Join(dir, "batch.npy")
	f, err := os.Create(batch)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	nw, err := state.NewNPYWriter(f, state.Uint8, n, h, w, c)
	if err != nil {
		t.Fatal(err)
	}
	if err := nw.WriteUint8(all); err != nil {
		t.Fatal(err)
	}
	return batch, one
}

// TestEvalBatch: dlca eval -init of a batch [B, H, W, C] (B = 3, and B =
// 1) runs one rollout per state: its -states array is [T+1, B, H, W, C],
// says so, and state b's slice of it is what eval writes from state b
// alone, for the circuit and the soft model (asynchronously, whose fire
// masks are drawn over the batch, the initial states only).
func TestEvalBatch(t *testing.T) {
	dir := t.TempDir()
	model := smallModel(t, dir)
	const h, w, c, steps = 6, 5, 8, 3
	for _, n := range []int{3, 1} {
		batch, one := writeStates(t, t.TempDir(), n, h, w, c)
		for _, mode := range [][]string{nil, {"-soft"}, {"-async"}} {
			out := filepath.Join(dir, "batch-states.npy")
			args := slices.Concat([]string{"eval", "-model", model, "-init", batch, "-steps", "3", "-states", out}, mode)
			code, stdout, errs := runCmd(args...)
			if code != 0 {
				t.Fatalf("dlca %s: exit %d: %s", strings.Join(args, " "), code, errs)
			}
			if !strings.Contains(stdout, "rollouts of the "+string(rune('0'+n))+" states") || !strings.Contains(stdout, "step, state of the batch, row, column, channel") {
				t.Errorf("eval of a batch of %d %v says %q; want the rollouts counted and the array's layout", n, mode, stdout)
			}
			shape, all := readNPY(t, out)
			if want := []int{steps + 1, n, h, w, c}; !slices.Equal(shape, want) {
				t.Fatalf("batch of %d %v: -states shape %v, want %v", n, mode, shape, want)
			}
			cells := h * w * c
			for b := range n {
				single := filepath.Join(dir, "one-states.npy")
				dlcaOK(t, slices.Concat([]string{"eval", "-model", model, "-init", one[b], "-steps", "3", "-states", single}, mode)...)
				_, alone := readNPY(t, single)
				compared := steps + 1
				if slices.Contains(mode, "-async") {
					// The fire masks are drawn over the whole batch, cell
					// after cell, so a state's masks depend on the batch:
					// only the initial states must agree.
					compared = 1
				}
				for step := range compared {
					got := all[(step*n+b)*cells : (step*n+b+1)*cells]
					if !slices.Equal(got, alone[step*cells:(step+1)*cells]) {
						t.Fatalf("batch of %d %v: state %d, step %d differs from its rollout alone", n, mode, b, step)
					}
				}
			}
		}
	}
	_, one := writeStates(t, t.TempDir(), 1, h, w, c)
	code, stdout, _ := runCmd("eval", "-model", model, "-init", one[0], "-steps", "3", "-states", filepath.Join(dir, "s.npy"))
	if code != 0 || !strings.Contains(stdout, "(4 states of 6x5x8; uint8 (4, 6, 5, 8): step, row, column, channel;") {
		t.Errorf("eval of one state [H, W, C]: exit %d, %q; want the layout of a [T+1, H, W, C] array", code, stdout)
	}
}
