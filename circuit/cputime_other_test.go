//go:build !unix

package circuit

import "time"

// cpuTime is not measured on this platform; the per-CPU-second metric is
// then left out.
func cpuTime() time.Duration { return 0 }
