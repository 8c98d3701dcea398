package bptt

import (
	"fmt"
	"math"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/internal/memlimit"
)

// MemoryEstimate is the memory a CPU training run adds to its process at
// its peak, in bytes, computed from the shapes alone before anything is
// allocated. The activations dominate: what one step keeps for the backward
// pass (dlca's fused step, feature-major: the update network's input and
// every update layer's output; the perception's it recomputes tile by
// tile), times the steps kept at once.
type MemoryEstimate struct {
	StepBytes  int64 // activations of one step
	KeptSteps  int   // steps whose activations are alive at once
	StateBytes int64 // one state [Batch, H, W, C]
	KeptStates int   // states alive at once
	ParamBytes int64 // logits, their gradients, AdamW's two moments, coefficients
	// ScratchBytes are the backward pass's two gradient buffers, each as
	// large as the largest array a step keeps, the neighbourhoods'
	// gradient, and each worker's buffers for the perception's tiles.
	ScratchBytes int64
	Live         int64 // the sum of the above: the live heap at the peak
	// GCBytes is the garbage collector's headroom over the live heap,
	// Live * memlimit.GCPercent / 100 (see memlimit.GCPercent).
	GCBytes int64
	// RuntimeBytes is what the runtime and the code grow by while
	// training, whatever the size: goroutine stacks, the collector's
	// metadata, code pages first run.
	RuntimeBytes int64
	Total        int64 // Live + GCBytes + RuntimeBytes
}

// EstimateMemory estimates the memory a CPU training run of setup on a
// height x width grid adds to its process, under memlimit.GCPercent. With
// gradient checkpointing over time (Setup.Recompute k, or the engine's
// own choice, Setup.Segment) it keeps k steps' activations and one state
// per segment; without, every step's activations and state. The GPU
// engine plans its buffers itself (package gpu, Budget) from the same
// shapes.
func EstimateMemory(s Setup, height, width int) MemoryEstimate {
	return estimateStep(s, height, width).kept(s.Steps, s.Segment(height, width))
}

// estimateStep is EstimateMemory without the counts of steps and states
// kept.
func estimateStep(s Setup, height, width int) MemoryEstimate {
	cfg := s.Model.Config
	elem := 4.0
	if s.Model.DType() == autograd.Float64 {
		elem = 8
	}
	// NOTE: in float64, exact to 8 PiB, so that absurd sizes from the
	// command line saturate instead of overflowing into small numbers.
	cells := float64(s.Batch) * float64(height) * float64(width)
	c := float64(cfg.Channels)
	// A step keeps the update network's input and every update layer's
	// output; the backward pass's two gradient buffers serve those
	// arrays in turn. The perception's arrays live in each worker's tile
	// buffers, over a tile's rows at a time, and the backward
	// pass adds the neighbourhoods' gradient (9 per state value).
	var step, largest, params float64
	add := func(n float64) {
		step += n
		largest = max(largest, n)
	}
	add(cells * float64(cfg.UpdateInputs()))
	for _, l := range s.Model.Update {
		add(float64(l.Out) * cells)
		params += float64(l.Out)
	}
	// NOTE: the grid's rows as an int (saturated) only to ask for the
	// tiles' shape, which is at most 8 blocks whatever the grid.
	rows, workers := dlca.TileShape(int(min(cells*c, math.MaxInt32)), 0)
	tileRows := float64(rows)
	tile, tileLargest := float64(dlca.NeighbourhoodSize)*tileRows, float64(dlca.NeighbourhoodSize)*tileRows
	for _, l := range s.Model.Perception {
		n := float64(l.Groups*l.Out) * tileRows
		tile += n
		tileLargest = max(tileLargest, n)
		params += float64(l.Groups * l.Out)
	}
	scratch := 2*largest + cells*c*dlca.NeighbourhoodSize + float64(workers)*(tile+2*tileLargest)
	// Logits, gradient, two moments (16 values per gate each), and the
	// coefficients (4) with their softmax probabilities (16).
	return MemoryEstimate{StepBytes: saturate(step * elem), StateBytes: saturate(cells * c * elem), ParamBytes: saturate(params * (4*16 + 4 + 16) * elem), ScratchBytes: saturate(scratch * elem)}
}

// EstimateRollout estimates the memory a soft rollout of m without
// gradients (dlca eval -soft) adds on a height x width grid, under
// memlimit.GCPercent: every step reuses one step's activations, and two states are
// alive (the current one and the next); no gradients, no optimiser.
func EstimateRollout(m *dlca.Model, height, width int) MemoryEstimate {
	e := estimateStep(Setup{Model: m, Batch: 1, Steps: 1}, height, width)
	e.ParamBytes = e.ParamBytes / (4*16 + 4 + 16) * 20 // coefficients and probabilities only
	e.ScratchBytes = 0
	return e.kept(1, 0)
}

// kept completes m for a rollout of steps steps recomputed in segments of
// k steps (0: no recomputation).
func (m MemoryEstimate) kept(steps, k int) MemoryEstimate {
	m.KeptSteps, m.KeptStates = steps, steps+1
	if k > 0 && k < steps {
		m.KeptSteps, m.KeptStates = k, (steps+k-1)/k+1
	}
	m.Live = saturate(float64(m.KeptSteps)*float64(m.StepBytes) + float64(m.KeptStates)*float64(m.StateBytes) + float64(m.ParamBytes) + float64(m.ScratchBytes))
	m.GCBytes = saturate(float64(m.Live) * memlimit.GCPercent / 100)
	m.RuntimeBytes = memlimit.RuntimeBytes
	m.Total = memlimit.WithOverhead(m.Live)
	return m
}

// saturate converts a byte count to int64, the largest int64 if it is
// larger.
func saturate(n float64) int64 {
	if n >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(n)
}

// SuggestRecompute returns about sqrt(steps): the segment length that
// minimises the kept activations and states of a rollout of steps steps
// when a state is as large as a step's activations. A cell's state is
// usually far smaller (the checkerboard's 8 values against its step's
// 3,080), and then shorter segments need less: Check suggests the leanest
// for the actual sizes (leanest).
func SuggestRecompute(steps int) int {
	return max(1, int(math.Round(math.Sqrt(float64(steps)))))
}

// leanest returns the segment length, of 1 to steps-1, whose estimate is
// the smallest (the shortest of equals), and that estimate; 0 when the
// rollout is too short to recompute. Every length costs the same second
// forward pass, so the leanest is the one to suggest.
//
// NOTE: the estimate is k x step + (ceil(steps/k) + 1) x state plus
// constants, smallest near k = sqrt(steps x state / step); only lengths
// within leanWindow of that (and 1) are tried, so that a run of 10^12
// steps is answered at once instead of after hours (every length is tried
// up to 2 x leanWindow steps).
func (m MemoryEstimate) leanest(steps int) (int, MemoryEstimate) {
	best, at := MemoryEstimate{}, 0
	try := func(k int) {
		if r := m.kept(steps, k); at == 0 || r.Total < best.Total || r.Total == best.Total && k < at {
			best, at = r, k
		}
	}
	if steps < 2 {
		return 0, best
	}
	try(1)
	centre := int(math.Sqrt(float64(steps) * float64(max(m.StateBytes, 1)) / float64(max(m.StepBytes, 1))))
	for k := max(2, centre-leanWindow); k < steps && k <= centre+leanWindow; k++ {
		try(k)
	}
	return at, best
}

// leanWindow is how far from the analytic optimum leanest looks.
const leanWindow = 4096

// String describes the estimate in one line.
func (m MemoryEstimate) String() string {
	return fmt.Sprintf("%s (%d steps x %s of activations, %d states x %s, %s of parameters and optimiser state, %s of gradient buffers, %s of garbage collector headroom, %s for the runtime)",
		memlimit.FormatBytes(m.Total), m.KeptSteps, memlimit.FormatBytes(m.StepBytes), m.KeptStates, memlimit.FormatBytes(m.StateBytes), memlimit.FormatBytes(m.ParamBytes), memlimit.FormatBytes(m.ScratchBytes), memlimit.FormatBytes(m.GCBytes), memlimit.FormatBytes(m.RuntimeBytes))
}

// Check returns an error, with a suggestion, if the estimate for setup
// exceeds limit bytes; source says where the limit comes from. It
// suggests the leanest -recompute when that fits the limit. The
// suggestion names only flags that dlca train and dlca-view both have
// (-recompute, -max-memory): the batch and grid are the experiment's, not
// flags, and -device gpu would not help, as the check counts the CPU
// engine's memory whatever the device.
func (m MemoryEstimate) Check(s Setup, limit int64, source string) error {
	if m.Total <= limit {
		return nil
	}
	hint := "free some memory, or raise -max-memory if the limit is wrong"
	if k, r := m.leanest(s.Steps); k > 0 && k != s.Recompute && r.Total <= limit {
		hint = fmt.Sprintf("train with gradient checkpointing (-recompute %d needs about %s and a second forward pass), %s", k, memlimit.FormatBytes(r.Total), hint)
	}
	return fmt.Errorf("bptt: training needs about %s but %s is %s: %s", m, source, memlimit.FormatBytes(limit), hint)
}

// CheckMemory refuses, with a suggestion, a CPU run of setup on a height x
// width grid whose estimated memory exceeds what the run may take
// (memlimit.Check, which sets the garbage collector the estimate counts
// on). A run that adds the state penalty (run.StatePenalty) is estimated
// keeping every step's activations, as the penalised iterations do
// (penalty.go), whatever setup.Recompute says.
func CheckMemory(s Setup, run Run, height, width int, maxMemory string) error {
	return memlimit.Check(maxMemory, func(limit int64, source string) error {
		if run.StatePenalty > 0 {
			s.Recompute = s.Steps // one segment of every step: all kept
			if m := EstimateMemory(s, height, width); m.Total > limit {
				return fmt.Errorf("bptt: training with the state penalty, which keeps every step's activations, needs about %s but %s is %s: free some memory, or raise -max-memory if the limit is wrong", m, source, memlimit.FormatBytes(limit))
			}
			return nil
		}
		return EstimateMemory(s, height, width).Check(s, limit, source)
	})
}
