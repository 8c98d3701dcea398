//go:build unix

package bptt

import (
	"os"
	"os/signal"
	"syscall"
)

// onDemand makes SIGUSR1 request a checkpoint from k until the returned
// function is called.
func onDemand(k *Checkpointer) (stop func()) {
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
