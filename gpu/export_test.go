package gpu

// Exported for the external tests (package gpu_test), which import packages
// that may themselves import gpu (experiments).
var TestDevice = testDevice

// FinalState reads back the last rollout's final state [cells][C].
func FinalState(e *Engine) ([]float32, error) {
	return Read[float32](e.d, e.r.state[e.setup.Steps], e.r.grid.Len())
}
