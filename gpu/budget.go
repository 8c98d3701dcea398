package gpu

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// Budget is the device memory an engine needs, computed before it
// allocates anything.
type Budget struct {
	Buffers []BufferSize // every buffer, in allocation order
}

// BufferSize is one planned buffer.
type BufferSize struct {
	Label string
	Bytes int64
}

// add plans a buffer of n 4-byte elements (at least one).
func (b *Budget) add(label string, n int) {
	b.Buffers = append(b.Buffers, BufferSize{label, 4 * int64(max(n, 1))})
}

// Total is the sum of all buffers, in bytes.
func (b Budget) Total() int64 {
	var t int64
	for _, s := range b.Buffers {
		t += s.Bytes
	}
	return t
}

// Largest is the biggest single buffer.
func (b Budget) Largest() BufferSize {
	if len(b.Buffers) == 0 {
		return BufferSize{}
	}
	return slices.MaxFunc(b.Buffers, func(x, y BufferSize) int { return int(x.Bytes - y.Bytes) })
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// String summarises the budget in one line.
func (b Budget) String() string {
	l := b.Largest()
	return fmt.Sprintf("device memory budget %s in %d buffers (largest %q: %s)", mib(b.Total()), len(b.Buffers), l.Label, mib(l.Bytes))
}

// Check returns an error, with a suggestion, if the budget exceeds the
// device's per-buffer limits or memoryLimit bytes in total (0: no total
// limit; WebGPU does not report a device's memory size).
func (b Budget) Check(d *Device, memoryLimit int64) error {
	const suggest = "use a smaller grid, batch, number of steps or network, or train with -device cpu"
	l := b.Largest()
	if err := d.checkSize(fmt.Sprintf("buffer %q", l.Label), uint64(l.Bytes), suggest); err != nil {
		return fmt.Errorf("%w, in the %s", err, b)
	}
	if memoryLimit > 0 && b.Total() > memoryLimit {
		return fmt.Errorf("gpu: %s exceeds the memory limit of %s; %s", b, mib(memoryLimit), suggest)
	}
	return nil
}

// Report writes the budget, grouped by the label's first word, to w.
func (b Budget) Report(w io.Writer) {
	var order []string
	sums := map[string]int64{}
	counts := map[string]int{}
	for _, s := range b.Buffers {
		k, _, _ := strings.Cut(s.Label, " ")
		if _, ok := sums[k]; !ok {
			order = append(order, k)
		}
		sums[k] += s.Bytes
		counts[k]++
	}
	fmt.Fprintln(w, b.String())
	for _, k := range order {
		fmt.Fprintf(w, "  %-12s %4d buffers %12s\n", k, counts[k], mib(sums[k]))
	}
}
