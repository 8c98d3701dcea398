//go:build !amd64

package fused

const useAsm = false

func adamAVX2(p, g, m, v *float32, n int, c *Adam) { panic("fused: no assembly on this architecture") }
