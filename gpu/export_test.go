package gpu

// Exported for the external tests (package gpu_test), which import packages
// that may themselves import gpu (experiments).
var TestDevice = testDevice
