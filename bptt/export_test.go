package bptt

// Exports for the external tests.

const (
	WorkerTrials  = workerTrials
	WorkerRetrial = workerRetrial
)

// WorkerChoice is workerChoice for the tests.
type WorkerChoice struct{ c *workerChoice }

func NewWorkerChoice(workers int) WorkerChoice          { return WorkerChoice{newWorkerChoice(workers)} }
func (w WorkerChoice) Next() (workers int, done func()) { return w.c.next() }
func (w WorkerChoice) Chosen() int                      { return w.c.chosen }
