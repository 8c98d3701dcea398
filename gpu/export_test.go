package gpu

import "testing"

// Exported for the external tests (package gpu_test), which import packages
// that may themselves import gpu (experiments).
var TestDevice = testDevice

// FinalState reads back the last rollout's final state [cells][C].
func FinalState(e *Engine) ([]float32, error) {
	return Read[float32](e.d, e.r.state[e.setup.Steps], e.r.grid.Len())
}

// LoseDevice makes the next n readbacks (every one, for n < 0) fail as they
// do once the device is lost, until the test ends (see readFault). A fault
// that passes after n is harder on the code than a real loss, which never
// passes: only a failure kept by the code under test can then make the
// later readbacks fail.
func LoseDevice(t testing.TB, n int) {
	left := n
	readFault = func() bool {
		if left == 0 {
			return false
		}
		left--
		return true
	}
	t.Cleanup(func() { readFault = nil })
}
