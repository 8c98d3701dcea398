//go:build !unix

package main

// freeDisk cannot tell the free space here.
func freeDisk(string) (int64, bool) { return 0, false }
