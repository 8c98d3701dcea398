package viewer

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Progress is what a training run reports after each iteration.
type Progress struct {
	Iter        int // iterations done (1 after the first)
	Iters       int // iterations planned
	SoftLoss    float64
	HardLoss    float64
	ActiveGates int
	Elapsed     time.Duration // since training started
	// Snapshot, when not nil, returns a Simulator of the model as it is now,
	// independent of further training. It may be called only during the
	// observe call that received it (the model changes afterwards).
	Snapshot func() Simulator
}

// Trainer is a training run seen from the viewer.
type Trainer interface {
	// Train trains until the run ends or ctx is cancelled, calling observe
	// after every iteration from the training goroutine. Before it returns
	// it saves the model (or its checkpoint), so that cancelling loses no
	// finished iteration.
	Train(ctx context.Context, observe func(Progress)) error
}

// liveRun is a training run in its own goroutine. Everything it shares with
// the App goes through mu; the App only ever holds mu to copy a few fields.
type liveRun struct {
	cancel  context.CancelFunc
	done    chan struct{}
	wantSim atomic.Bool // set by the App, cleared by the trainer when it hands one over

	mu      sync.Mutex
	version int
	first   Progress // the first iteration reported
	latest  Progress
	soft    []float64
	hard    []float64
	sim     Simulator // a newer model's simulator, not yet taken
	err     error     // Train's result, once done is closed
}

// liveStats is the App's copy of the run's figures.
type liveStats struct {
	version    int
	first      Progress // the first iteration reported: the origin of the rate
	latest     Progress
	soft, hard []float64
	err        error
	ended      bool
}

// rate returns the iterations per second since the first iteration reported
// (which leaves out the set-up time and, after a resume, earlier runs), or 0
// before there are two.
func (s *liveStats) rate() float64 {
	dt := (s.latest.Elapsed - s.first.Elapsed).Seconds()
	if dt <= 0 {
		return 0
	}
	return float64(s.latest.Iter-s.first.Iter) / dt
}

// Losses are one iteration's soft and hard loss.
type Losses struct{ Soft, Hard float64 }

// startLive runs tr in a new goroutine; history holds the losses of
// iterations done before (a resumed run).
func startLive(ctx context.Context, tr Trainer, history []Losses) *liveRun {
	ctx, cancel := context.WithCancel(ctx)
	l := &liveRun{cancel: cancel, done: make(chan struct{})}
	for _, h := range history {
		l.soft = append(l.soft, h.Soft)
		l.hard = append(l.hard, h.Hard)
	}
	l.wantSim.Store(true)
	go func() {
		err := tr.Train(ctx, l.observe)
		l.mu.Lock()
		l.err = err
		l.version++
		l.mu.Unlock()
		close(l.done)
	}()
	return l
}

// observe runs in the training goroutine after each iteration.
func (l *liveRun) observe(p Progress) {
	var sim Simulator
	if p.Snapshot != nil && l.wantSim.Load() {
		sim = p.Snapshot()
		l.wantSim.Store(false)
	}
	p.Snapshot = nil
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.latest.Iter == 0 {
		l.first = p
	}
	l.latest = p
	l.soft = append(l.soft, p.SoftLoss)
	l.hard = append(l.hard, p.HardLoss)
	if sim != nil {
		l.sim = sim
	}
	l.version++
}

// take copies what changed since s.version into s and returns a newer
// model's simulator, if one arrived, and whether anything changed.
func (l *liveRun) take(s *liveStats) (Simulator, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.version == s.version {
		return nil, false
	}
	s.version = l.version
	s.latest = l.latest
	s.first = l.first
	s.soft = append(s.soft, l.soft[len(s.soft):]...)
	s.hard = append(s.hard, l.hard[len(s.hard):]...)
	s.err = l.err
	sim := l.sim
	l.sim = nil
	return sim, true
}

func (l *liveRun) stop() { l.cancel() }

func (l *liveRun) finished() bool {
	select {
	case <-l.done:
		return true
	default:
		return false
	}
}

// wait blocks until the training goroutine has returned.
func (l *liveRun) wait() { <-l.done }

// NewLive returns an App that runs tr in the background and shows the
// latest model's rollout: each model snapshot runs Options.RolloutSteps
// steps from a fresh initial state, then the App switches to the newest one.
// Cancelling ctx stops training as Quit does.
func NewLive(ctx context.Context, tr Trainer, opt Options) *App {
	a := newApp(opt)
	a.live = startLive(ctx, tr, opt.History)
	return a
}

// pollLive takes the run's news; when the current rollout has run its
// course (or there is none yet) it asks for, and adopts, a newer model.
func (a *App) pollLive() {
	sim, changed := a.live.take(&a.stats)
	if changed {
		a.version++
	}
	if !a.stats.ended && a.live.finished() {
		a.stats.ended = true
		a.version++
	}
	if sim != nil {
		a.adopt(sim)
		return
	}
	if a.sim == nil || a.steps >= a.opt.RolloutSteps {
		a.live.wantSim.Store(true)
	}
}

// Training returns the latest figures of a live run, the run's error once
// it has ended, and whether there is a live run at all.
func (a *App) Training() (p Progress, err error, ok bool) {
	return a.stats.latest, a.stats.err, a.live != nil
}

// Settled reports whether nothing outside the App changes the picture any
// more: always when replaying, once training has ended when live.
func (a *App) Settled() bool { return a.live == nil || a.stats.ended }

// Wait blocks until a live run has stopped; call it after the window is
// gone, so that a checkpoint is complete before the program exits.
func (a *App) Wait() {
	if a.live != nil {
		a.live.stop()
		a.live.wait()
	}
}

// IterationsPerSecond returns the training rate shown in the panel.
func (a *App) IterationsPerSecond() float64 { return a.stats.rate() }

// LossHistory returns the soft and hard loss of every iteration so far,
// those of a resumed run's History first.
func (a *App) LossHistory() (soft, hard []float64) { return a.stats.soft, a.stats.hard }
