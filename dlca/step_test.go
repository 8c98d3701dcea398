package dlca

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/circuit"
)

// TestRolloutGradientsMatchFiniteDifferences checks backpropagation through
// time: for L(theta) = sum (final[...,0] - target)^2 after 3 steps, every
// analytical dL/dlogit and dL/dstate0 agrees with the central difference
// (L(theta+h) - L(theta-h)) / 2h, in float64.
func TestRolloutGradientsMatchFiniteDifferences(t *testing.T) {
	for _, tc := range []struct {
		name  string
		b     circuit.Boundary
		async bool
	}{
		{"zero", circuit.Zero, false},
		{"periodic", circuit.Periodic, false},
		{"periodic-async", circuit.Periodic, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := tinyModel(t, tinyConfig(tc.b), 3)
			state := randomState(autograd.Float64, 4, 2, 4, 4, 2).SetRequiresGrad(true)
			target := randomState(autograd.Float64, 5, 2, 4, 4, 1)
			opt := RolloutOptions{Async: tc.async, Seed: 9}
			loss := func() float64 {
				return sse(m.Rollout(state.NoGrad(), 3, opt), target).Item()
			}
			if err := sse(m.Rollout(state, 3, opt), target).Backward(); err != nil {
				t.Fatal(err)
			}
			const h = 1e-6
			check := func(name string, p *autograd.Tensor) {
				g := p.Grad()
				if g == nil {
					t.Fatalf("%s: no gradient", name)
				}
				nonzero := 0
				for i := range p.Len() {
					x := p.At(i)
					p.SetAt(i, x+h)
					up := loss()
					p.SetAt(i, x-h)
					down := loss()
					p.SetAt(i, x)
					want := (up - down) / (2 * h)
					if got := g.At(i); math.Abs(got-want) > 1e-6+1e-5*math.Abs(want) {
						t.Fatalf("%s[%d]: backprop %.9g, finite difference %.9g", name, i, got, want)
					}
					if math.Abs(want) > 1e-9 {
						nonzero++
					}
				}
				if nonzero == 0 {
					t.Fatalf("%s: every gradient is zero; the check proves nothing", name)
				}
			}
			for i, p := range m.Params() {
				check(fmt.Sprintf("logits of %s", m.Layers()[i].Name), p)
			}
			check("state", state)
		})
	}
}

// TestRolloutMatchesReference holds the fused step to the composed-autograd
// reference: same final state and same gradients, in both boundaries.
func TestRolloutMatchesReference(t *testing.T) {
	for _, b := range []circuit.Boundary{circuit.Zero, circuit.Periodic} {
		t.Run(b.String(), func(t *testing.T) {
			m := tinyModel(t, tinyConfig(b), 11)
			ref := m.Clone()
			target := randomState(autograd.Float64, 5, 2, 4, 4, 1)
			s1 := randomState(autograd.Float64, 6, 2, 4, 4, 2).SetRequiresGrad(true)
			s2 := s1.Clone().SetRequiresGrad(true)
			got := m.Rollout(s1, 3, RolloutOptions{})
			want := ref.ReferenceRollout(s2, 3)
			assertClose(t, "final state", got, want, 1e-12)
			if err := sse(got, target).Backward(); err != nil {
				t.Fatal(err)
			}
			if err := sse(want, target).Backward(); err != nil {
				t.Fatal(err)
			}
			for i, p := range m.Params() {
				assertClose(t, "gradient of "+m.Layers()[i].Name, p.Grad(), ref.Params()[i].Grad(), 1e-10)
			}
			assertClose(t, "gradient of the state", s1.Grad(), s2.Grad(), 1e-10)
		})
	}
}

func assertClose(t *testing.T, what string, got, want *autograd.Tensor, tol float64) {
	t.Helper()
	if got.Len() != want.Len() {
		t.Fatalf("%s: %d values, want %d", what, got.Len(), want.Len())
	}
	for i := range got.Len() {
		if d := math.Abs(got.At(i) - want.At(i)); d > tol*(1+math.Abs(want.At(i))) {
			t.Fatalf("%s[%d] = %.12g, want %.12g", what, i, got.At(i), want.At(i))
		}
	}
}

func TestStep(t *testing.T) {
	m := tinyModel(t, tinyConfig(circuit.Zero), 2)
	s := randomState(autograd.Float64, 1, 1, 4, 4, 2).NoGrad()
	assertClose(t, "sync step", m.Step(s, nil), m.Rollout(s, 1, RolloutOptions{}), 0)
	assertClose(t, "no cell fires", m.Step(s, make([]bool, 16)), s, 0)
	fire := make([]bool, 16)
	fire[5] = true
	got, all := m.Step(s, fire), m.Step(s, nil)
	for i := range 32 {
		want := s.At(i)
		if i/2 == 5 {
			want = all.At(i)
		}
		if got.At(i) != want {
			t.Fatalf("one cell fires: value %d is %v, want %v", i, got.At(i), want)
		}
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "fire flags") {
			t.Fatalf("wrong fire length: panic %v", r)
		}
	}()
	m.Step(s, make([]bool, 3))
}

// A rollout that records nothing shares one set of buffers between its
// steps; it must still compute what a recorded rollout computes.
func TestRolloutWithoutRecordingMatches(t *testing.T) {
	m := tinyModel(t, tinyConfig(circuit.Periodic), 4)
	s := randomState(autograd.Float64, 2, 2, 4, 4, 2)
	recorded := m.Rollout(s, 5, RolloutOptions{Async: true, Seed: 3})
	if !recorded.RequiresGrad() {
		t.Fatal("the reference rollout was not recorded")
	}
	plain := m.Rollout(s.NoGrad(), 5, RolloutOptions{Async: true, Seed: 3})
	assertClose(t, "final state", plain, recorded, 0)
}
