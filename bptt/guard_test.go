package bptt_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/bptt"
)

// TestNonFiniteStopsTraining injects a NaN or an infinity into the input of
// iteration 3 or into a logit: training stops with an error that names the
// iteration and the layer, before the optimiser's step, and the checkpoint
// of iteration 2 stays on disk unchanged.
func TestNonFiniteStopsTraining(t *testing.T) {
	for _, tc := range []struct {
		name    string
		bad     float32 // put into iteration 3's initial state
		badLogt bool    // put a NaN into a logit of the starting model instead
		want    []string
	}{
		{"NaN input", float32(math.NaN()), false, []string{"iteration 3:", "the loss is NaN", "gradient", "of layer "}},
		{"infinite input", float32(math.Inf(1)), false, []string{"iteration 3:", "of layer "}},
		{"NaN logit", 0, true, []string{"iteration 1:", "logit 17 of layer update/1 (gate 1, op", "is NaN"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setup, run := asyncRun(t, 6)
			if tc.badLogt {
				setup.Model = setup.Model.Clone()
				setup.Model.Update[1].Logits.SetAt(17, math.NaN())
			}
			src := run.Source
			it := 0
			run.Source = func(rng *rand.Rand) *bptt.Batch {
				b := src(rng)
				if it++; it == 3 && !tc.badLogt {
					b.Init[5] = tc.bad
				}
				return b
			}
			eng, err := bptt.NewCPU(setup)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "run.ckpt")
			if _, err := bptt.NewCheckpointer(path, 1, "test", eng, &run, nil); err != nil {
				t.Fatal(err)
			}
			var saved []byte
			run.Observers = append(run.Observers, func(bptt.Event) { saved, _ = os.ReadFile(path) })
			metrics, _, err := bptt.Train(context.Background(), eng, setup, run)
			var nf *bptt.NonFiniteError
			if !errors.As(err, &nf) {
				t.Fatalf("Train returned %v, want a NonFiniteError", err)
			}
			t.Log(err)
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if tc.badLogt {
				return
			}
			if len(metrics) != 2 {
				t.Fatalf("%d iterations reported, want 2", len(metrics))
			}
			got, _ := os.ReadFile(path)
			ck, err := bptt.LoadCheckpoint(path)
			if err != nil || ck.Iteration != 2 || !bytes.Equal(got, saved) {
				t.Fatalf("the checkpoint after the NaN: %v, iteration %v, unchanged %v", err, ck.Iteration, bytes.Equal(got, saved))
			}
			if err := bptt.CheckLogits(ck.Model); err != nil {
				t.Fatal(err)
			}
			m, _ := eng.Model()
			if err := bptt.CheckLogits(m); err != nil {
				t.Fatalf("the engine stepped on the NaN: %v", err)
			}
		})
	}
}

func TestCheckGradients(t *testing.T) {
	m := tinySetup(t).Model.Clone()
	if err := bptt.CheckGradients(m); err != nil {
		t.Fatalf("no gradients: %v", err)
	}
	for _, p := range m.Params() {
		p.SetGrad(autograd.ZerosLike(p))
	}
	if err := bptt.CheckGradients(m); err != nil {
		t.Fatalf("zero gradients: %v", err)
	}
	m.Perception[2].Logits.Grad().SetAt(40, math.Inf(-1))
	err := bptt.CheckGradients(m)
	if err == nil || !strings.Contains(err.Error(), "gradient 40 of layer perception/2 (gate 2, op NOR) is -Inf") {
		t.Fatalf("error %v", err)
	}
}

// TestSaveRefusesNonFinite: a checkpoint of a model with a NaN is not
// written, and the previous checkpoint stays.
func TestSaveRefusesNonFinite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.ckpt")
	old := writeCheckpoint(t, tinySetup(t))
	if err := os.WriteFile(path, old, 0o644); err != nil {
		t.Fatal(err)
	}
	ck, err := bptt.ReadCheckpoint(bytes.NewReader(old))
	if err != nil {
		t.Fatal(err)
	}
	ck.Model.Update[0].Logits.SetAt(3, math.NaN())
	if err := ck.Save(path); err == nil || !strings.Contains(err.Error(), "update/0") {
		t.Fatalf("Save: %v", err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, old) {
		t.Fatal("the previous checkpoint changed")
	}
}
