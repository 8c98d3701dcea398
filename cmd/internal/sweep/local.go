package sweep

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/dlca/dlca/cmd/internal/runctl"
	"github.com/dlca/dlca/internal/safefile"
)

// Local runs a plan's trainings on this machine, Jobs at a time, each as a
// dlca train process. It is resumable: a finished run is skipped, and one
// with a checkpoint goes on from it.
type Local struct {
	Dlca   string // the dlca executable
	Jobs   int    // trainings at a time (0: one per CPU)
	Device string // dlca train -device
	Out    io.Writer
	TTY    bool // Out is a terminal: redraw a progress line per run in place
}

// Run trains every run of p in sweep folder dir that has not finished.
// When ctx is done it interrupts the trainings (each saves its checkpoint)
// and returns an error that says how to go on. A failed run is recorded
// (FailedName, its log) and the others go on; the error then names it.
func (l *Local) Run(ctx context.Context, dir string, p *Plan) error {
	jobs := l.Jobs
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	var todo []RunStatus
	runs := Status(dir, p)
	for _, r := range runs {
		if r.State != Finished {
			todo = append(todo, r)
		}
	}
	jobs = max(1, min(jobs, len(todo)))
	procs := max(1, runtime.NumCPU()/jobs)
	b := newBoard(l.Out, l.TTY, len(runs), len(runs)-len(todo))
	if len(todo) == 0 {
		b.event(fmt.Sprintf("sweep %s: all %d runs have finished", dir, len(runs)))
		return nil
	}
	b.event(fmt.Sprintf("sweep %s: %d runs, %d finished already; training %d, %d at a time (GOMAXPROCS=%d each)",
		dir, len(runs), len(runs)-len(todo), len(todo), jobs, procs))
	if err := os.MkdirAll(filepath.Join(dir, LogsDir), 0o755); err != nil {
		return fmt.Errorf("cannot create the logs folder: %w", err)
	}
	queue := make(chan RunStatus)
	var wg sync.WaitGroup
	for range jobs {
		wg.Go(func() {
			for r := range queue {
				l.train(ctx, dir, p, r, procs, b)
			}
		})
	}
	stopDraw := b.start()
	for _, r := range todo {
		select {
		case queue <- r:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(queue)
	wg.Wait()
	stopDraw()
	after := Status(dir, p)
	b.event(Summary(after))
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted: the unfinished runs saved their checkpoints; run the same command again to go on (dlca sweep -status %s shows where each run stands)", dir)
	}
	if n := Count(after)[Failed]; n > 0 {
		return fmt.Errorf("%d of %d runs failed: see the logs in %s (running the same command again retries them)", n, len(after), filepath.Join(dir, LogsDir))
	}
	return nil
}

// train runs one training to its end, recording a failure.
func (l *Local) train(ctx context.Context, dir string, p *Plan, r RunStatus, procs int, b *board) {
	if ctx.Err() != nil {
		return
	}
	// A training an earlier sweep started (and was killed before it ended)
	// may still run: wait for it, then go on from where it left the run.
	if pid, running := runctl.Holder(r.Dir); running {
		b.event(fmt.Sprintf("run %s: still trained by process %d (an earlier sweep's); waiting for it to end", r.Name, pid))
		for running {
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Second):
			}
			_, running = runctl.Holder(r.Dir)
		}
		if r.State, r.Detail = stateOf(r.Dir); r.State == Finished {
			b.end(r.Name, "finished (by the earlier sweep's training)", true)
			return
		}
	}
	args := p.TrainArgs(r.Run, r.Dir, l.Device)
	how := "starting"
	// A run with a checkpoint goes on from it, also after a failed attempt
	// (a training killed by the OOM killer): train refuses -out there.
	if r.State == Unfinished || exists(filepath.Join(r.Dir, checkpointName)) {
		args, how = ResumeArgs(r.Dir, l.Device), "resuming ("+r.Detail+")"
	}
	os.Remove(filepath.Join(r.Dir, FailedName))
	logPath := LogPath(dir, r.Name)
	log, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		l.fail(b, r, logPath, fmt.Sprintf("cannot open its log: %v", err))
		return
	}
	defer log.Close()
	fmt.Fprintf(log, "== %s: %s %s\n", time.Now().Format(time.RFC3339), l.Dlca, strings.Join(args, " "))
	line := b.begin(r.Name, how)
	cmd := exec.CommandContext(ctx, l.Dlca, args...)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) } // dlca train saves a checkpoint
	cmd.WaitDelay = time.Minute                                           // then kill it
	cmd.Env = append(os.Environ(), fmt.Sprintf("GOMAXPROCS=%d", procs))
	cmd.Stdout = log
	cmd.Stderr = io.MultiWriter(log, line)
	err = cmd.Run()
	switch {
	case err == nil:
		b.end(r.Name, "finished", true)
	case ctx.Err() != nil:
		b.end(r.Name, "interrupted, checkpoint saved", false)
	default:
		b.end(r.Name, "", false)
		l.fail(b, r, logPath, fmt.Sprintf("%v: %s", err, line.last()))
	}
}

// fail records run r's failure in its folder and reports it.
func (l *Local) fail(b *board, r RunStatus, logPath, why string) {
	msg := fmt.Sprintf("%s at %s; log: %s", why, time.Now().Format(time.RFC3339), logPath)
	if err := os.MkdirAll(r.Dir, 0o755); err == nil {
		safefile.Write(filepath.Join(r.Dir, FailedName), func(w io.Writer) error { _, err := fmt.Fprintln(w, msg); return err })
	}
	b.event(fmt.Sprintf("run %s failed: %s", r.Name, msg))
}
