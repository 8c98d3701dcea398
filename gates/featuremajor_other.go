//go:build !amd64 || purego

package gates

// useVector is false: there are no vector loops on this platform (or with
// the purego build tag).
var useVector = false

// forwardVector does no rows here: forwardGateFM's Go loop does them all.
func forwardVector[F Float](_, _, _ []F, _, _, _, _ F) int { return 0 }

// backwardVectorBlocks does no blocks here: backwardGateFM does them one
// by one.
func backwardVectorBlocks[F Float](_, _, _, _, _ []F, _, _, _ F, _ [][4]F, _ []float32) int { return 0 }

// backwardVector does no rows here: backwardGateFM's Go loop does them all.
func backwardVector[F Float](_, _, _, _, _ []F, _, _, _ F, _ *[8]F) int { return 0 }
