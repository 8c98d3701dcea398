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
