package bptt

import (
	"fmt"
	"io"
	"math"
	"time"
)

// Progress returns an observer that reports training on w: on a terminal
// (tty) one line rewritten in place, otherwise a plain line every
// iterations/20 iterations and at the end. Each line shows the iteration,
// soft and hard loss, active gates, the rate and the time left.
func Progress(w io.Writer, tty bool) Observer {
	return func(e Event) {
		every := max(1, e.Iterations/20)
		last := e.Iteration == e.Iterations
		if !tty && e.Iteration%every != 0 && !last && e.Iteration != 1 {
			return
		}
		rate := float64(e.Iteration-e.Start) / e.Elapsed.Seconds()
		line := fmt.Sprintf("iter %*d/%d  soft %9.3f  hard %5.0f  active %4d  %6.2f it/s  ETA %s",
			len(fmt.Sprint(e.Iterations)), e.Iteration, e.Iterations, e.SoftLoss, e.HardLoss, e.ActiveGates, rate, eta(e.Iterations-e.Iteration, rate))
		switch {
		case !tty:
			fmt.Fprintln(w, line)
		case last:
			fmt.Fprintf(w, "\r%s\x1b[K\n", line)
		default:
			fmt.Fprintf(w, "\r%s\x1b[K", line)
		}
	}
}

// eta is the time left for left iterations at rate iterations a second,
// rounded to the second; "?" when the rate says nothing (no time measured
// yet, no iteration done, or a remainder beyond what a Duration holds), so
// that it never prints a negative or overflowed time.
func eta(left int, rate float64) string {
	if left <= 0 {
		return "0s"
	}
	secs := float64(left) / rate
	if !(rate > 0) || math.IsInf(rate, 0) || secs > math.MaxInt64/float64(time.Second) {
		return "?"
	}
	return time.Duration(secs * float64(time.Second)).Round(time.Second).String()
}
