//go:build amd64 && !purego

package circuit

import (
	"golang.org/x/sys/cpu"

	"github.com/dlca/dlca/gates"
)

// The AVX2 loops of kernel_amd64.s, each dst[i] = f(a[i], b[i]).

//go:noescape
func andAVX2(dst, a, b []uint64) // a & b

//go:noescape
func andNotAVX2(dst, a, b []uint64) // a &^ b

//go:noescape
func orAVX2(dst, a, b []uint64) // a | b

//go:noescape
func xorAVX2(dst, a, b []uint64) // a ^ b

//go:noescape
func nandAVX2(dst, a, b []uint64) // ^(a & b)

//go:noescape
func norAVX2(dst, a, b []uint64) // ^(a | b)

//go:noescape
func xnorAVX2(dst, a, b []uint64) // ^(a ^ b)

//go:noescape
func orNotAVX2(dst, a, b []uint64) // a | ^b

//go:noescape
func notAVX2(dst, a, b []uint64) // ^a

// useVector says whether applyVector may run; tests switch it off to check
// the Go loops on the same machine.
var useVector = cpu.X86.HasAVX2

// applyVector applies o with the AVX2 loops and reports whether it did
// (false for the constants and pass-throughs, which have no vector form,
// and on CPUs without AVX2).
func applyVector(o gates.Op, dst, a, b []uint64) bool {
	if !useVector {
		return false
	}
	switch o {
	case gates.And:
		andAVX2(dst, a, b)
	case gates.AAndNotB:
		andNotAVX2(dst, a, b)
	case gates.NotAAndB:
		andNotAVX2(dst, b, a)
	case gates.Xor:
		xorAVX2(dst, a, b)
	case gates.Or:
		orAVX2(dst, a, b)
	case gates.Nor:
		norAVX2(dst, a, b)
	case gates.Xnor:
		xnorAVX2(dst, a, b)
	case gates.NotB:
		notAVX2(dst, b, b)
	case gates.AOrNotB:
		orNotAVX2(dst, a, b)
	case gates.NotA:
		notAVX2(dst, a, a)
	case gates.NotAOrB:
		orNotAVX2(dst, b, a)
	case gates.Nand:
		nandAVX2(dst, a, b)
	default:
		return false
	}
	return true
}
