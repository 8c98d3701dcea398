package mnist

// openGPU opens the GPU device for NewDevice. It is the seam for autograd's
// GPU device (issue #13), and nothing else in this package or cmd/mnist
// needs to change when it is filled in: open the device (no adapter is an
// error, on which the tests skip unless DLCA_REQUIRE_GPU=1) and return a
// Device whose
//
//   - Place is MoveParameters(m, func(p) { return p.To(dev) }),
//   - Input is x.To(dev) and Host is t.To(the CPU),
//
// with a close function that releases the device.
func openGPU() (Device, func(), error) {
	return nil, nil, ErrGPUNotBuilt
}
