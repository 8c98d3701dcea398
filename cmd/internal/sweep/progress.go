package sweep

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// board shows a local sweep's progress: a line per running run (its latest
// dlca train progress line) and one for the whole sweep with its ETA. On a
// terminal the lines are redrawn in place every second, with events
// (started, finished, failed) printed above them; elsewhere every event and
// progress line is printed as it comes.
type board struct {
	mu       sync.Mutex
	w        io.Writer
	tty      bool
	total    int // runs in the plan
	finished int
	stopped  int // runs ended without finishing (failed, interrupted)
	trained  int // iterations trained by the runs that ended
	began    time.Time
	running  []*runLine // in start order
	totals   []int      // iterations of the runs seen so far, for the ETA of those not started
	live     bool       // the live block is on screen (tty, between start and stop)
	drawn    int        // lines of the live block on screen
}

func newBoard(w io.Writer, tty bool, total, finished int) *board {
	return &board{w: w, tty: tty, total: total, finished: finished, began: time.Now()}
}

// runLine is one running run: it reads the run's dlca train output (an
// io.Writer) and keeps its latest progress line and last other line.
type runLine struct {
	b                 *board
	name, progress    string
	partial, lastLine string
	first, iter, of   int // iteration at start (resumed), now, of
	quarter           int // of the run last printed (not on a terminal)
	seen              bool
}

// progressLine matches bptt.Progress's line: "iter 12/300  soft ...".
var progressLine = regexp.MustCompile(`^iter\s+(\d+)/(\d+)`)

func (l *runLine) Write(p []byte) (int, error) {
	l.b.mu.Lock()
	defer l.b.mu.Unlock()
	l.partial += string(p)
	for {
		i := strings.IndexByte(l.partial, '\n')
		if i < 0 {
			break
		}
		line := strings.TrimSpace(l.partial[:i])
		l.partial = l.partial[i+1:]
		m := progressLine.FindStringSubmatch(line)
		if m == nil {
			if line != "" {
				l.lastLine = line
			}
			continue
		}
		l.iter, _ = strconv.Atoi(m[1])
		l.of, _ = strconv.Atoi(m[2])
		if !l.seen {
			// The first line comes after the first iteration of this
			// process: a resumed run started one before.
			l.seen, l.first = true, l.iter-1
			l.b.totals = append(l.b.totals, l.of)
		}
		quarter := l.iter * 4 / max(1, l.of)
		l.progress = line
		if !l.b.tty && (quarter != l.quarter || l.iter == l.first+1) {
			l.quarter = quarter
			fmt.Fprintf(l.b.w, "%s: %s\n", l.name, line)
		}
	}
	return len(p), nil
}

// last is the run's last output line that was not a progress line (its
// error, when it failed).
func (l *runLine) last() string {
	l.b.mu.Lock()
	defer l.b.mu.Unlock()
	return l.lastLine
}

// begin adds a running run.
func (b *board) begin(name, how string) *runLine {
	l := &runLine{b: b, name: name, progress: how}
	b.mu.Lock()
	b.running = append(b.running, l)
	b.mu.Unlock()
	b.print(fmt.Sprintf("run %s: %s", name, how), false)
	return l
}

// end removes a run; what is printed unless empty.
func (b *board) end(name, what string, finished bool) {
	b.mu.Lock()
	b.running = slices.DeleteFunc(b.running, func(l *runLine) bool {
		if l.name == name {
			b.trained += l.iter - l.first
		}
		return l.name == name
	})
	if finished {
		b.finished++
	} else {
		b.stopped++
	}
	b.mu.Unlock()
	if what != "" {
		b.print(fmt.Sprintf("run %s: %s", name, what), true)
	}
}

// event prints a line above the live block.
func (b *board) event(line string) { b.print(line, false) }

// print prints a line above the live block; not on a terminal, the sweep's
// line follows it if overall.
func (b *board) print(line string, overall bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.live {
		b.erase()
		fmt.Fprintln(b.w, line)
		b.draw()
		return
	}
	fmt.Fprintln(b.w, line)
	if overall && !b.tty {
		fmt.Fprintln(b.w, b.overall())
	}
}

// start redraws the live block every second on a terminal; call the
// returned function to stop.
func (b *board) start() (stop func()) {
	if !b.tty {
		return func() {}
	}
	b.mu.Lock()
	b.live = true
	b.draw()
	b.mu.Unlock()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				b.mu.Lock()
				b.erase()
				b.draw()
				b.mu.Unlock()
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
		b.mu.Lock()
		b.erase()
		b.live = false
		b.mu.Unlock()
	}
}

// erase moves up over the live block and clears it (b.mu held).
func (b *board) erase() {
	if b.drawn > 0 {
		fmt.Fprintf(b.w, "\x1b[%dA\x1b[J", b.drawn)
		b.drawn = 0
	}
}

// draw writes the live block (b.mu held).
func (b *board) draw() {
	for _, l := range b.running {
		fmt.Fprintf(b.w, "  %s: %s\x1b[K\n", l.name, l.progress)
	}
	fmt.Fprintf(b.w, "%s\x1b[K\n", b.overall())
	b.drawn = len(b.running) + 1
}

// overall is the sweep's line: runs by state and the time left, estimated
// from the iterations trained since the sweep started (b.mu held).
func (b *board) overall() string {
	done, left := b.trained, 0
	for _, l := range b.running {
		done += l.iter - l.first
		left += l.of - l.iter
	}
	waiting := b.total - b.finished - b.stopped - len(b.running)
	// A run not started yet counts as many iterations as the mean run
	// seen so far.
	mean := 0
	if len(b.totals) > 0 {
		sum := 0
		for _, n := range b.totals {
			sum += n
		}
		mean = sum / len(b.totals)
	}
	left += waiting * mean
	elapsed := time.Since(b.began)
	eta := "?"
	if done > 0 && mean > 0 {
		eta = (time.Duration(float64(elapsed) * float64(left) / float64(done)).Round(time.Second)).String()
	}
	return fmt.Sprintf("sweep: %d/%d finished, %d running, %d waiting; %s elapsed, ETA %s",
		b.finished, b.total, len(b.running), waiting, elapsed.Round(time.Second), eta)
}
