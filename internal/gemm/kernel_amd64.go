package gemm

import "golang.org/x/sys/cpu"

func hasAsm() bool { return cpu.X86.HasAVX2 && cpu.X86.HasFMA }

// sgemm6x16 and dgemm6x8 are the assembly micro-kernels (kernel_amd64.s):
// the contract of kernel.micro with add as 0 or 1.
//
//go:noescape
func sgemm6x16(k int, ap, bp, c *float32, ldc int, add int)

//go:noescape
func dgemm6x8(k int, ap, bp, c *float64, ldc int, add int)

func asmMicro32(k int, ap, bp, c []float32, ldc int, add bool) {
	_, _, _ = ap[6*k-1+boolInt(k == 0)], bp[16*k-1+boolInt(k == 0)], c[5*ldc+15]
	sgemm6x16(k, &ap[0], &bp[0], &c[0], ldc, boolInt(add))
}

func asmMicro64(k int, ap, bp, c []float64, ldc int, add bool) {
	_, _, _ = ap[6*k-1+boolInt(k == 0)], bp[8*k-1+boolInt(k == 0)], c[5*ldc+7]
	dgemm6x8(k, &ap[0], &bp[0], &c[0], ldc, boolInt(add))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
