package mnist

// openGPU opens the GPU device for NewDevice. It is the seam for autograd's
// GPU device (issue #13): once gpu/ provides one, return a Device whose
// Place moves the parameters with To, Input moves a batch with To and Host
// reads back, and a close function that releases the adapter; an error
// when there is no adapter (tests skip on it unless DLCA_REQUIRE_GPU=1).
// Nothing else in this package or cmd/mnist needs to change.
func openGPU() (Device, func(), error) {
	return nil, nil, ErrGPUNotBuilt
}
