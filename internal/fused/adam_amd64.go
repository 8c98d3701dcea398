package fused

import "golang.org/x/sys/cpu"

var useAsm = cpu.X86.HasAVX2

// adamAVX2 is adamGo over the first n elements (n a multiple of 4), four
// at a time in float64 lanes (adam_amd64.s).
//
//go:noescape
func adamAVX2(p, grad, m, v *float32, n int, c *Adam)
