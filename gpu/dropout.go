package gpu

import "fmt"

// DropoutMask records dropout_mask.wgsl: mask[i] = scale where
// autograd.DropoutKeeps(seed, i, threshold), else 0, for the first n
// elements.
func (o Ops) DropoutMask(mask *Buffer, n int, seed uint64, threshold uint32, scale float32) error {
	if mask.N < n {
		panic(fmt.Sprintf("gpu: DropoutMask of %d elements into buffer %q of %d", n, mask.Label, mask.N))
	}
	par := dropoutParams{N: uint32(n), SeedLo: uint32(seed), SeedHi: uint32(seed >> 32), Threshold: threshold, Scale: scale}
	return o.dispatch("dropout_mask.wgsl", n, par, mask)
}
