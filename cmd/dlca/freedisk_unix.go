//go:build unix

package main

import "syscall"

// freeDisk returns the bytes an unprivileged user may still write on the
// file system holding dir; ok is false when that cannot be told.
func freeDisk(dir string) (free int64, ok bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return int64(st.Bavail) * int64(st.Bsize), true
}
