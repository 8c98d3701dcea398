//go:build unix

package runctl

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/dlca/dlca/bptt"
)

// onDemand makes SIGUSR1 request a checkpoint from k until the returned
// function is called.
func onDemand(k *bptt.Checkpointer) (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGUSR1)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-ch:
				k.Request()
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}

// ignoreBrokenPipe keeps a training going when whatever reads its output
// goes away (the sweep that started it killed, a terminal's pipe closed):
// writes to its standard output and error then fail with EPIPE instead of
// ending the process with SIGPIPE, and its checkpoint and outputs are
// still written.
func ignoreBrokenPipe() { signal.Ignore(syscall.SIGPIPE) }
