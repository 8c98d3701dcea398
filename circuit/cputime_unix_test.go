//go:build unix

package circuit

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time this process has used, user and system.
// Benchmarks report throughput per CPU-second beside the wall-clock figure
// because the shared build machine is often loaded by other processes.
func cpuTime() time.Duration {
	var r syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &r) != nil {
		return 0
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}
