//go:build !unix

package runctl

import "github.com/dlca/dlca/bptt"

// onDemand does nothing where there is no SIGUSR1.
func onDemand(*bptt.Checkpointer) (stop func()) { return func() {} }

// ignoreBrokenPipe has nothing to do here: there is no SIGPIPE.
func ignoreBrokenPipe() {}
