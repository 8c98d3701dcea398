package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/experiments"
	"github.com/dlca/dlca/gates"
)

// gapRows returns the whitespace-separated fields of the lines of out that
// start with prefix.
func gapRows(out, prefix string) [][]string {
	var rows [][]string
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.HasPrefix(line, prefix) {
			rows = append(rows, f)
		}
	}
	return rows
}

// stepRows returns the fields of the step table's rows of out: the lines of
// five fields whose first is a step number.
func stepRows(out string) [][]string {
	var rows [][]string
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) == 5 {
			if _, err := strconv.Atoi(f[0]); err == nil {
				rows = append(rows, f)
			}
		}
	}
	return rows
}

// TestGapFreshModel: a fresh model's gates are all pass-through with
// probability e^10/(e^10+15) > 0.99, and the table counts every gate.
func TestGapFreshModel(t *testing.T) {
	e, _ := experiments.Get("checkerboard-small")
	m, err := dlca.New(e.Model, autograd.Float32)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	writeConfidences(&buf, m)
	all := gapRows(buf.String(), "all ")
	want := fmt.Sprintf("%d %d 0 0 0", m.NumGates(), m.NumGates())
	if len(all) != 1 || strings.Join(all[0][1:], " ") != want {
		t.Fatalf("fresh model, row 'all' = %v, want %s:\n%s", all, want, buf.String())
	}
	if rows := gapRows(buf.String(), "perception/"); len(rows) != len(m.Perception) {
		t.Errorf("%d perception rows for %d layers", len(rows), len(m.Perception))
	}
}

// TestGapDecidedModel: when every gate has all but decided (one logit far
// above the others), the soft model is the circuit: no bit differs at any
// step and both losses agree. With the gates undecided, they part.
func TestGapDecidedModel(t *testing.T) {
	for _, name := range []string{"checkerboard-small", "checkerboard-async"} {
		e, _ := experiments.Get(name)
		e.Model.Height, e.Model.Width = 8, 8
		m, err := dlca.New(e.Model, autograd.Float64)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(5, 0))
		for _, l := range m.Layers() {
			for g := range l.Groups * l.Out {
				op := rng.IntN(gates.NumOps)
				for o := range gates.NumOps {
					v := 0.0
					if o == op {
						v = 60
					}
					l.Logits.SetAt(g*gates.NumOps+o, v)
				}
			}
		}
		var buf bytes.Buffer
		writeDrift(context.Background(), &buf, e, m, 3)
		steps := stepRows(buf.String())
		if len(steps) != e.Steps {
			t.Fatalf("%s: %d step rows for %d steps:\n%s", name, len(steps), e.Steps, buf.String())
		}
		for _, f := range steps {
			if f[1] != "0" || f[2] != "0" || fmt.Sprint(f[3]) != f[4]+".000" {
				t.Errorf("%s: decided gates, yet step %s: %v", name, f[0], f)
			}
		}
		// The same model with its gates' logits divided by 30 (top op
		// probability about 0.35) no longer matches its circuit.
		for _, l := range m.Layers() {
			for i := range l.Logits.Len() {
				l.Logits.SetAt(i, l.Logits.At(i)/30)
			}
		}
		buf.Reset()
		writeDrift(context.Background(), &buf, e, m, 3)
		last := stepRows(buf.String())
		if f := last[len(last)-1]; f[1] == "0" && f[2] == "0" {
			t.Errorf("%s: undecided gates, yet the last step shows no drift: %v", name, f)
		}
	}
}
