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

// TestProgressETA: the time left is never negative, whatever the clock and
// counts say: a zero elapsed time, no iteration since the start, a rate so
// slow the time left overflows a Duration, or more iterations done than
// asked for.
func TestProgressETA(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		iteration, iterations int
		start                 int
		elapsed               time.Duration
		want                  string
	}{
		{"steady", 10, 40, 0, time.Second, "ETA 3s"},
		{"last iteration", 40, 40, 0, 4 * time.Second, "ETA 0s"},
		{"no time measured", 1, 40, 0, 0, "ETA ?"},
		{"nothing done since the start", 6, 40, 6, time.Second, "ETA ?"},
		{"overflowing Duration", 1, 1 << 62, 0, time.Hour, "ETA ?"},
		{"past the end", 42, 40, 0, time.Second, "ETA 0s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			bptt.Progress(&buf, false)(bptt.Event{Metrics: bptt.Metrics{Iteration: tc.iteration}, Iterations: tc.iterations, Start: tc.start, Elapsed: tc.elapsed})
			line := buf.String()
			if !strings.Contains(line, tc.want) || strings.Contains(line, "ETA -") {
				t.Fatalf("%q: want %q", line, tc.want)
			}
		})
	}
}
