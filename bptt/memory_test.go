package bptt_test

import (
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/experiments"
	"github.com/dlca/dlca/internal/memlimit"
)

// TestEstimateMemoryCheckerboard checks the estimate against the paper's
// checkerboard counted by hand: 512 cells (2 x 16 x 16) x 8 channels; per
// step 264 update inputs and 2816 update gates per cell, 4 bytes each (the
// perception's 9 neighbourhood values and 16 kernels x (8+4+2) gates per
// cell and channel are recomputed tile by tile, not kept). Kept for all 20
// steps (one segment of 20), that is 126 MB; by default the engine
// recomputes step by step (its 6 MiB fit CacheStepBytes), keeping one.
func TestEstimateMemoryCheckerboard(t *testing.T) {
	e, m := experimentModel(t, "checkerboard")
	s := e.Setup(m)
	s.Recompute = s.Steps
	all := bptt.EstimateMemory(s, 16, 16)
	const perStep = 4 * (512*264 + 2816*512)
	if all.StepBytes != perStep || all.KeptSteps != 20 || all.StateBytes != 4*512*8 {
		t.Fatalf("estimate %+v, want %d bytes per step, 20 steps kept, states of %d bytes", all, perStep, 4*512*8)
	}
	s.Recompute = bptt.SuggestRecompute(s.Steps)
	r := bptt.EstimateMemory(s, 16, 16)
	if s.Recompute != 4 || r.KeptSteps != 4 || r.KeptStates != 6 || r.Total*3 > all.Total {
		t.Fatalf("with recompute %d: %+v, keeping every step %+v", s.Recompute, r, all)
	}
	s.Recompute = 0
	if k := s.Segment(16, 16); k != 1 {
		t.Fatalf("the engine's own segment is %d steps, want 1", k)
	}
	if d := bptt.EstimateMemory(s, 16, 16); d.KeptSteps != 1 || d.KeptStates != 21 || d.Total >= r.Total {
		t.Fatalf("by default: %+v, with recompute 4 %+v", d, r)
	}
}

// TestSegmentKeepsLargeSteps: the lizard's steps on 40x40 cells (1,600
// cells x 5,120 update inputs and gates, 31 MiB of activations each) do
// not fit CacheStepBytes, so by default their training keeps every step;
// on its own 20x20 grid they do (8 MiB), and a one-step rollout has
// nothing to recompute.
func TestSegmentKeepsLargeSteps(t *testing.T) {
	e, m := experimentModel(t, "lizard")
	s := e.Setup(m)
	if k := s.Segment(40, 40); k != 0 {
		t.Errorf("lizard on 40x40 cells: segment %d, want 0 (keep every step)", k)
	}
	if k := s.Segment(20, 20); k != 1 {
		t.Errorf("lizard: segment %d, want 1", k)
	}
	s.Steps = 1
	if k := s.Segment(2, 2); k != 0 {
		t.Errorf("one step: segment %d, want 0", k)
	}
	s.Steps, s.Recompute = 12, 5
	if k := s.Segment(20, 20); k != 5 {
		t.Errorf("recompute 5 asked for: segment %d", k)
	}
	// A segment as long as the rollout would keep every step anyway, and
	// pay a second forward pass.
	for _, k := range []int{12, 13} {
		s.Recompute = k
		if got := s.Segment(20, 20); got != 0 {
			t.Errorf("recompute %d of 12 steps: segment %d, want 0 (keep every step)", k, got)
		}
	}
}

// peakHeap runs f and returns the largest heap seen while it ran, above the
// live heap before it (sampled every 200 microseconds). With gcPercent > 0
// it runs f under that GOGC, so that little garbage counts; otherwise
// under the current one.
func peakHeap(gcPercent int, f func()) int64 {
	if gcPercent > 0 {
		defer debug.SetGCPercent(debug.SetGCPercent(gcPercent))
	}
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() int64 {
		metrics.Read(sample)
		return int64(sample[0].Value.Uint64())
	}
	// Arrays the storage pool holds free would be reused by f without
	// counting as growth: the base is measured without them.
	autograd.FreeUnusedMemory()
	runtime.GC()
	base := read()
	var peak atomic.Int64
	done := make(chan struct{})
	go func() {
		for {
			if v := read(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-time.After(200 * time.Microsecond):
			}
		}
	}()
	f()
	close(done)
	return peak.Load() - base
}

// TestEstimateMemoryMatchesTheHeap runs first iterations of the small
// checkerboard keeping every step (one segment of all steps), with
// gradient checkpointing every sqrt(steps), and as the engine chooses by
// default (step by step), and compares the peak heap growth with the
// estimate's live heap; checkpointing must shrink both (by a third at
// least every sqrt(steps): the buffers every step shares weigh as much
// as a few steps' activations).
func TestEstimateMemoryMatchesTheHeap(t *testing.T) {
	e, m := experimentModel(t, "checkerboard-small")
	b := e.Source()(newRand(1))
	var peaks [3]int64
	for i, k := range []int{e.Steps, bptt.SuggestRecompute(e.Steps), 0} {
		s := e.Setup(m)
		s.Recompute = k
		est := bptt.EstimateMemory(s, 8, 8)
		var err error
		peaks[i] = peakHeap(5, func() {
			eng, _ := bptt.NewCPU(s)
			_, err = eng.Iterate(b)
			runtime.KeepAlive(eng)
		})
		if err != nil {
			t.Fatal(err)
		}
		ratio := float64(peaks[i]) / float64(est.Live)
		t.Logf("recompute %d: estimated live heap %s, peak heap growth %s (x%.2f)", k, memlimit.FormatBytes(est.Live), memlimit.FormatBytes(peaks[i]), ratio)
		if ratio < 0.8 || ratio > 1.4 {
			t.Errorf("recompute %d: peak heap growth %d bytes is %.2f times the estimated live heap %d", k, peaks[i], ratio, est.Live)
		}
	}
	if peaks[1]*3 > peaks[0]*2 || peaks[2] > peaks[1] {
		t.Errorf("peaks %d bytes keeping every step, %d recomputing every %d, %d by default", peaks[0], peaks[1], bptt.SuggestRecompute(e.Steps), peaks[2])
	}
}

func TestMemoryCheck(t *testing.T) {
	e, m := experimentModel(t, "checkerboard")
	s := e.Setup(m)
	s.Recompute = s.Steps // keep every step
	est := bptt.EstimateMemory(s, 16, 16)
	if err := est.Check(s, est.Total, "-max-memory"); err != nil {
		t.Fatalf("a limit equal to the estimate: %v", err)
	}
	err := est.Check(s, 100<<20, "-max-memory")
	if err == nil || !strings.Contains(err.Error(), "-max-memory is 100.0 MiB") || !strings.Contains(err.Error(), "(-recompute 1 needs") {
		t.Fatalf("error %v, want the limit and a -recompute 1 suggestion", err)
	}
	// A checkerboard step's activations (6 MiB) dwarf its state (16 KiB):
	// one step at a time, keeping 21 states, needs the least, less than
	// the sqrt(T) rule's 4 steps and 6 states.
	s.Recompute = 1
	one := bptt.EstimateMemory(s, 16, 16)
	s.Recompute = bptt.SuggestRecompute(s.Steps)
	if four := bptt.EstimateMemory(s, 16, 16); s.Recompute != 4 || one.Total >= four.Total || !strings.Contains(err.Error(), memlimit.FormatBytes(one.Total)) {
		t.Fatalf("-recompute 1 needs %d bytes, -recompute %d %d; the suggestion: %v", one.Total, s.Recompute, four.Total, err)
	}
	// Sizes from the command line may be absurd: the estimate saturates
	// rather than overflowing into a small number.
	huge := bptt.EstimateMemory(s, 1<<30, 1<<30)
	if huge.Total != math.MaxInt64 || huge.Check(s, 1<<40, "-max-memory") == nil {
		t.Errorf("a 2^30 x 2^30 grid: estimate %d bytes", huge.Total)
	}
}

// BenchmarkRecompute compares one training iteration of the paper's
// checkerboards (and the asynchronous one unrolled for 200 steps) with and
// without gradient checkpointing over time: the
// estimated live heap, the peak heap growth of a fresh engine's first iteration
// (sampled) and the CPU time per iteration.
func BenchmarkRecompute(b *testing.B) {
	for _, run := range []struct {
		name  string
		steps int
	}{{"checkerboard", 20}, {"checkerboard-async", 50}, {"checkerboard-async", 200}} {
		e, err := experiments.Get(run.name)
		if err != nil {
			b.Skip(err)
		}
		e.Steps = run.steps
		m, err := dlca.New(e.Model, autograd.Float32)
		if err != nil {
			b.Fatal(err)
		}
		batch := e.Source()(newRand(1))
		for _, k := range []int{0, bptt.SuggestRecompute(e.Steps)} {
			b.Run(fmt.Sprintf("%s/T=%d/recompute=%d", e.Name, e.Steps, k), func(b *testing.B) {
				s := e.Setup(m)
				s.Recompute = k
				est := bptt.EstimateMemory(s, e.Model.Height, e.Model.Width)
				var eng *bptt.CPUEngine
				peak := peakHeap(0, func() {
					eng, _ = bptt.NewCPU(s)
					if _, err := eng.Iterate(batch); err != nil {
						b.Fatal(err)
					}
				})
				cpu0 := cpuTime()
				for b.Loop() {
					if _, err := eng.Iterate(batch); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(cpuTime()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
				b.ReportMetric(float64(est.Live)/(1<<20), "est-MiB") // the live heap, as peak measures
				b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
			})
		}
	}
}
