package memlimit

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// GCPercent is the garbage collector's setting (GOGC) that training (and
// dlca eval) runs under; SetGC sets it and the estimates count on it.
//
// NOTE: the CPU engine's activations live in a reused workspace, so an
// iteration's garbage is small, but Go lets the heap grow to GOGC percent
// above the live heap before collecting, and the peak resident set then
// depends on how much garbage happens to pile up: measured over the
// experiments, 13% to 30% above the live heap at GOGC 25 (what dlca train
// set before), 18% to 110% at the default of 100, the most with
// -recompute. Holding GOGC at 10 bounds the headroom to a tenth of the
// live heap, which the estimate adds, for about 3% more CPU time on the
// checkerboard. A memory limit (debug.SetMemoryLimit) was the other
// choice: it bounds the heap only once the limit is near, so the peak
// would still wander below it and the estimate could not say where.
const GCPercent = 10

// RuntimeBytes is the resident memory a training run adds besides its
// heap and the collector's headroom: measured from a fresh process to its
// peak, it is 3 to 5 MiB on the smallest experiments (gameoflife's live
// heap is under 3 MiB), growing over the first tens of iterations.
const RuntimeBytes = 4 << 20

// SetGC sets the garbage collector to GCPercent for the rest of the
// process, so that the estimates (EstimateMemory, EstimateRollout) hold.
func SetGC() { debug.SetGCPercent(GCPercent) }

// WithOverhead returns live bytes of heap plus the garbage collector's
// headroom under GCPercent and the runtime's share (RuntimeBytes): the
// resident memory a computation holding that heap adds to its process.
func WithOverhead(live int64) int64 {
	return saturate(float64(live)*(1+GCPercent/100.0) + RuntimeBytes)
}

// Limit returns the memory a run may take and where that figure comes
// from: maxMemory (a size for ParseBytes, a -max-memory flag) when set,
// else MemoryLimit. It returns 0 when there is nothing to compare with
// (MemoryLimit cannot tell, off Linux); the error is maxMemory's.
func Limit(maxMemory string) (int64, string, error) {
	if maxMemory != "" {
		limit, err := ParseBytes(maxMemory)
		if err != nil {
			return 0, "", fmt.Errorf("-max-memory: %w", err)
		}
		return limit, "-max-memory", nil
	}
	limit, source, err := MemoryLimit()
	if err != nil {
		return 0, "", nil
	}
	return limit, source, nil
}

// MemoryLimit returns the memory this process may still take, and where
// that limit comes from: MemAvailable from /proc/meminfo, or less when the
// process's cgroup (a container's memory limit) leaves less room.
func MemoryLimit() (int64, string, error) {
	avail, err := AvailableMemory()
	if err != nil {
		return 0, "", err
	}
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return avail, availableSource, nil
	}
	if room, ok := cgroupRoom("/sys/fs/cgroup", string(self)); ok && room < avail {
		return room, "the room left under this container's memory limit (cgroup memory limit minus usage)", nil
	}
	return avail, availableSource, nil
}

const availableSource = "the available memory (MemAvailable in /proc/meminfo)"

// AvailableMemory returns MemAvailable from /proc/meminfo: the memory the
// kernel can give a new process without swapping.
func AvailableMemory() (int64, error) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, fmt.Errorf("memlimit: cannot read the available memory: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("memlimit: /proc/meminfo: MemAvailable %q: %w", rest, err)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("memlimit: /proc/meminfo has no MemAvailable line")
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

// saturate converts a byte count to int64, saturating where it is larger.
func saturate(n float64) int64 {
	if n >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(n)
}

// Check is the one memory check the commands run before a large
// allocation: it sets the garbage collector the estimates count on
// (SetGC), finds the memory this process may take (Limit(maxMemory)) and
// hands it to refuse, which compares the work's own estimate with limit
// and returns an error naming what would fit, or nil; source says where
// limit comes from, for the message. Check returns maxMemory's error, and
// nil without calling refuse when there is nothing to compare with (off
// Linux).
func Check(maxMemory string, refuse func(limit int64, source string) error) error {
	SetGC()
	limit, source, err := Limit(maxMemory)
	if err != nil || limit == 0 {
		return err
	}
	return refuse(limit, source)
}
