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
)

// TestEstimateMemoryCheckerboard checks the estimate against the paper's
// checkerboard counted by hand (DESIGN.md: "about 190 MB per iteration"):
// 512 cells (2 x 16 x 16) x 8 channels; per step 9 neighbourhood values and
// 16 kernels x (8+4+2) perception gates per (cell, channel), 264 update
// inputs and 2816 update gates per cell, 4 bytes each.
func TestEstimateMemoryCheckerboard(t *testing.T) {
	e, m := experimentModel(t, "checkerboard")
	s := e.Setup(m)
	est := bptt.EstimateMemory(s, 16, 16)
	const perStep = 4 * (512*8*9 + 16*(8+4+2)*512*8 + 512*264 + 2816*512)
	if est.StepBytes != perStep || est.KeptSteps != 20 || est.StateBytes != 4*512*8 {
		t.Fatalf("estimate %+v, want %d bytes per step, 20 steps kept, states of %d bytes", est, perStep, 4*512*8)
	}
	s.Recompute = bptt.SuggestRecompute(s.Steps)
	r := bptt.EstimateMemory(s, 16, 16)
	if s.Recompute != 4 || r.KeptSteps != 4 || r.KeptStates != 6 || r.Total*4 > est.Total {
		t.Fatalf("with recompute %d: %+v, without %+v", s.Recompute, r, est)
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
// checkerboard with and without gradient checkpointing and compares the
// peak heap growth with the estimate's live heap; checkpointing must
// shrink both.
func TestEstimateMemoryMatchesTheHeap(t *testing.T) {
	e, m := experimentModel(t, "checkerboard-small")
	b := e.Source()(newRand(1))
	var peaks [2]int64
	for i, k := range []int{0, bptt.SuggestRecompute(e.Steps)} {
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
		t.Logf("recompute %d: estimated live heap %s, peak heap growth %s (x%.2f)", k, bptt.FormatBytes(est.Live), bptt.FormatBytes(peaks[i]), ratio)
		if ratio < 0.8 || ratio > 1.4 {
			t.Errorf("recompute %d: peak heap growth %d bytes is %.2f times the estimated live heap %d", k, peaks[i], ratio, est.Live)
		}
	}
	if peaks[1]*2 > peaks[0] {
		t.Errorf("gradient checkpointing: peak %d bytes, without %d", peaks[1], peaks[0])
	}
}

func TestMemoryCheck(t *testing.T) {
	e, m := experimentModel(t, "checkerboard")
	s := e.Setup(m)
	est := bptt.EstimateMemory(s, 16, 16)
	if err := est.Check(s, est.Total, "-max-memory"); err != nil {
		t.Fatalf("a limit equal to the estimate: %v", err)
	}
	err := est.Check(s, 100<<20, "-max-memory")
	if err == nil || !strings.Contains(err.Error(), "-max-memory is 100.0 MiB") || !strings.Contains(err.Error(), "-recompute 4") {
		t.Fatalf("error %v, want the limit and a -recompute suggestion", err)
	}
	// Sizes from the command line may be absurd: the estimate saturates
	// rather than overflowing into a small number.
	huge := bptt.EstimateMemory(s, 1<<30, 1<<30)
	if huge.Total != math.MaxInt64 || huge.Check(s, 1<<40, "-max-memory") == nil {
		t.Errorf("a 2^30 x 2^30 grid: estimate %d bytes", huge.Total)
	}
	if avail, err := bptt.AvailableMemory(); err != nil || avail <= 0 {
		t.Fatalf("available memory %d, %v", avail, err)
	}
}

func TestParseBytes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{{"1000", 1000}, {"2GiB", 2 << 30}, {"1500MB", 1500e6}, {"1.5G", 3 << 29}, {" 64 KiB ", 64 << 10}, {"3B", 3}} {
		if got, err := bptt.ParseBytes(tc.in); err != nil || got != tc.want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "-1G", "0", "lots", "1e30TB", "NaN", "GiB"} {
		if _, err := bptt.ParseBytes(bad); err == nil {
			t.Errorf("ParseBytes(%q) accepted it", bad)
		}
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
				var eng *bptt.CPU
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
