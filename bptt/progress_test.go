package bptt_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/dlca/dlca/bptt"
)

func TestProgress(t *testing.T) {
	feed := func(tty bool) string {
		var buf bytes.Buffer
		obs := bptt.Progress(&buf, tty)
		for it := 1; it <= 40; it++ {
			obs(bptt.Event{Metrics: bptt.Metrics{Iteration: it, SoftLoss: 1, HardLoss: 2, ActiveGates: 3}, Iterations: 40, Elapsed: time.Duration(it) * 100 * time.Millisecond})
		}
		return buf.String()
	}
	plain := feed(false)
	lines := strings.Split(strings.TrimSuffix(plain, "\n"), "\n")
	// Iteration 1, then every 40/20 = 2 iterations.
	if len(lines) != 21 || strings.Contains(plain, "\r") {
		t.Fatalf("not a terminal: %d lines (want 21), carriage returns %v:\n%s", len(lines), strings.Contains(plain, "\r"), plain)
	}
	if last := lines[len(lines)-1]; !strings.Contains(last, "40/40") || !strings.Contains(last, "10.00 it/s") || !strings.Contains(last, "ETA 0s") {
		t.Fatalf("last line %q: want iteration 40/40 at 10 it/s, ETA 0s", last)
	}
	if !strings.Contains(lines[0], "ETA 4s") {
		t.Fatalf("first line %q: want ETA 4s (39 iterations at 10 it/s)", lines[0])
	}
	tty := feed(true)
	if strings.Count(tty, "\r") != 40 || strings.Count(tty, "\n") != 1 || !strings.HasSuffix(tty, "\n") {
		t.Fatalf("terminal: want 40 rewrites and one final newline, got %d and %d", strings.Count(tty, "\r"), strings.Count(tty, "\n"))
	}
}
