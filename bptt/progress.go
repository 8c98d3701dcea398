package bptt

import (
	"fmt"
	"io"
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
		eta := time.Duration(float64(e.Iterations-e.Iteration) / rate * float64(time.Second)).Round(time.Second)
		line := fmt.Sprintf("iter %*d/%d  soft %9.3f  hard %5.0f  active %4d  %6.2f it/s  ETA %v",
			len(fmt.Sprint(e.Iterations)), e.Iteration, e.Iterations, e.SoftLoss, e.HardLoss, e.ActiveGates, rate, eta)
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
