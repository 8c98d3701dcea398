package bptt

import "time"

// Exports for the external tests.

const (
	WorkerTrials  = workerTrials
	WorkerRetrial = workerRetrial
	WorkerSlowRun = workerSlowRun
)

// WorkerChoice is workerChoice for the tests.
type WorkerChoice struct{ c *workerChoice }

func NewWorkerChoice(workers int) WorkerChoice { return WorkerChoice{newWorkerChoice(workers)} }

// NewWorkerChoiceClock is NewWorkerChoice timed by now.
func NewWorkerChoiceClock(workers int, now func() time.Time) WorkerChoice {
	c := newWorkerChoice(workers)
	c.choice.Now = now
	return WorkerChoice{c}
}
func (w WorkerChoice) Next() (workers int, done func()) { return w.c.next() }
func (w WorkerChoice) Chosen() int                      { return w.c.chosen() }
