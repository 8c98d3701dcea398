//go:build !unix

package bptt

// onDemand does nothing where there is no SIGUSR1.
func onDemand(*Checkpointer) (stop func()) { return func() {} }
