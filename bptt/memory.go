package bptt

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/dlca"
)

// MemoryEstimate is the memory a CPU training iteration holds at its peak,
// in bytes, computed from the shapes alone before anything is allocated.
// The activations dominate: what one step keeps for the backward pass
// (dlca's fused step, feature-major: the neighbourhoods, every layer's
// outputs and the update network's input), times the steps kept at once.
type MemoryEstimate struct {
	StepBytes  int64 // activations of one step
	KeptSteps  int   // steps whose activations are alive at once
	StateBytes int64 // one state [Batch, H, W, C]
	KeptStates int   // states alive at once
	ParamBytes int64 // logits, their gradients, AdamW's two moments, coefficients
	// ScratchBytes are the backward pass's two gradient buffers, each as
	// large as the largest activation array of a step.
	ScratchBytes int64
	Total        int64
}

// EstimateMemory estimates the CPU engine's memory for setup on a
// height x width grid. Without gradient checkpointing (Setup.Recompute 0)
// every step's activations and state are kept; with it, Recompute steps'
// activations and one state per segment. The GPU engine plans its buffers
// itself (package gpu, Budget) from the same shapes.
func EstimateMemory(s Setup, height, width int) MemoryEstimate {
	cfg := s.Model.Config
	elem := int64(4)
	if s.Model.DType() == autograd.Float64 {
		elem = 8
	}
	cells := int64(s.Batch) * int64(height) * int64(width)
	c := int64(cfg.Channels)
	var step, largest, params int64
	add := func(n int64) {
		step += n
		largest = max(largest, n)
	}
	add(cells * c * dlca.NeighbourhoodSize)
	add(cells * int64(cfg.UpdateInputs()))
	for _, l := range s.Model.Perception {
		add(int64(l.Groups*l.Out) * cells * c)
		params += int64(l.Groups * l.Out)
	}
	for _, l := range s.Model.Update {
		add(int64(l.Out) * cells)
		params += int64(l.Out)
	}
	// Logits, gradient, two moments (16 values per gate each), and the
	// coefficients (4) with their softmax probabilities (16).
	m := MemoryEstimate{StepBytes: step * elem, StateBytes: cells * c * elem, ParamBytes: params * (4*16 + 4 + 16) * elem, ScratchBytes: 2 * largest * elem}
	return m.kept(s.Steps, s.Recompute)
}

// kept completes m for a rollout of steps steps recomputed in segments of
// k steps (0: no recomputation).
func (m MemoryEstimate) kept(steps, k int) MemoryEstimate {
	m.KeptSteps, m.KeptStates = steps, steps+1
	if k > 0 && k < steps {
		m.KeptSteps, m.KeptStates = k, (steps+k-1)/k+1
	}
	m.Total = int64(m.KeptSteps)*m.StepBytes + int64(m.KeptStates)*m.StateBytes + m.ParamBytes + m.ScratchBytes
	return m
}

// SuggestRecompute returns the segment length that minimises the kept
// activations and states of a rollout of steps steps: about sqrt(steps).
func SuggestRecompute(steps int) int {
	return max(1, int(math.Round(math.Sqrt(float64(steps)))))
}

// String describes the estimate in one line.
func (m MemoryEstimate) String() string {
	return fmt.Sprintf("%s (%d steps x %s of activations, %d states x %s, %s of parameters and optimiser state, %s of gradient buffers)",
		FormatBytes(m.Total), m.KeptSteps, FormatBytes(m.StepBytes), m.KeptStates, FormatBytes(m.StateBytes), FormatBytes(m.ParamBytes), FormatBytes(m.ScratchBytes))
}

// Check returns an error, with a suggestion, if the estimate for setup
// exceeds limit bytes; source says where the limit comes from.
func (m MemoryEstimate) Check(s Setup, limit int64, source string) error {
	if m.Total <= limit {
		return nil
	}
	hint := "use a smaller batch or grid"
	if k := SuggestRecompute(s.Steps); s.Recompute == 0 && k < s.Steps {
		hint = fmt.Sprintf("train with gradient checkpointing (-recompute %d needs about %s and a second forward pass), or %s", k, FormatBytes(m.kept(s.Steps, k).Total), hint)
	}
	return fmt.Errorf("bptt: training needs about %s but %s is %s: %s", m, source, FormatBytes(limit), hint)
}

// AvailableMemory returns MemAvailable from /proc/meminfo: the memory the
// kernel can give a new process without swapping.
func AvailableMemory() (int64, error) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, fmt.Errorf("bptt: cannot read the available memory: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("bptt: /proc/meminfo: MemAvailable %q: %w", rest, err)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("bptt: /proc/meminfo has no MemAvailable line")
}

var byteUnits = []struct {
	suffix string
	size   int64
}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40}, {"B", 1}}

// ParseBytes parses a memory size: a number of bytes, optionally with a
// unit (B, KB/MB/GB/TB in powers of 1000, KiB/MiB/GiB/TiB or K/M/G/T in
// powers of 1024), such as "2GiB" or "1500MB".
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range byteUnits {
		if rest, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = strings.TrimSpace(rest), u.size
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v > 0) || v*float64(mult) >= math.MaxInt64 {
		return 0, fmt.Errorf("memory size %q: want a positive number of bytes, optionally with a unit, such as 2GiB or 1500MB", s)
	}
	return int64(v * float64(mult)), nil
}

// FormatBytes writes n bytes in KiB, MiB or GiB.
func FormatBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
}
