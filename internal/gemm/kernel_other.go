//go:build !amd64

package gemm

func hasAsm() bool { return false }

var asmMicro32 = microGo32
var asmMicro64 = microGo64
