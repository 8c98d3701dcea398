//go:build !amd64 || purego

package circuit

import "github.com/dlca/dlca/gates"

// useVector is false: there are no vector loops on this platform (or with
// the purego build tag).
var useVector = false

// applyVector never applies o here: applyOp's Go loops do.
func applyVector(gates.Op, []uint64, []uint64, []uint64) bool { return false }
