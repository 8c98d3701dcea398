package mnist

import (
	"fmt"
	"io"
	"time"
)

// Progress returns a Config.Progress that reports training within an epoch
// on w: the step, images per second and the epoch's time left. On a
// terminal (tty) it rewrites one line at most every tenth of a second and
// clears it at the epoch's end (the epoch's own line follows); otherwise it
// prints a line every interval. batch is the images per step.
func Progress(w io.Writer, tty bool, batch int, interval time.Duration) func(epoch, step, steps int) {
	var start, last time.Time
	return func(epoch, step, steps int) {
		now := time.Now()
		if step == 1 {
			start, last = now, now
		}
		if step == steps {
			if tty {
				fmt.Fprint(w, "\r\x1b[K")
			}
			return
		}
		every := interval
		if tty {
			every = time.Second / 10
		}
		if now.Sub(last) < every {
			return
		}
		last = now
		elapsed := now.Sub(start).Seconds()
		rate := float64(step) / elapsed
		left := time.Duration(float64(steps-step) / rate * float64(time.Second)).Round(time.Second)
		line := fmt.Sprintf("epoch %d: step %*d/%d, %.0f images/s, %v left", epoch, len(fmt.Sprint(steps)), step, steps, rate*float64(batch), left)
		if tty {
			fmt.Fprintf(w, "\r%s\x1b[K", line)
		} else {
			fmt.Fprintln(w, line)
		}
	}
}
